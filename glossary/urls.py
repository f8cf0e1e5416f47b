from django.urls import URLPattern, URLResolver, include, path, register_converter
from django.views.generic import RedirectView

from glossary import api, podcasting, reference_views, views
from glossary.atom_feed import entry_feed
from glossary.cache import public_page
from glossary.sitemaps import sitemap_index, sitemap_section
from glossary.topics import TopicSlugConverter

register_converter(TopicSlugConverter, "topic")

app_name = "glossary"

urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.home, name="home"),
    # Readers trim an entry's address to its folder: the entries are listed at the index.
    path(
        "glossary/",
        RedirectView.as_view(pattern_name="glossary:home", permanent=True),
        name="glossary-index",
    ),
    path("glossary/<slug:slug>/", views.entry, name="entry"),
    path("episodes/", reference_views.episode_list, name="episodes"),
    path(
        "episodes/<slug:show>/<int:season>/<int:number>/", reference_views.episode, name="episode"
    ),
    path(
        "episodes/<slug:show>/<int:season>/<int:number>/chapters.json",
        podcasting.chapters,
        name="episode-chapters",
    ),
    path(
        "episodes/<slug:show>/<int:season>/<int:number>/soundbites.json",
        podcasting.soundbite_list,
        name="episode-soundbites",
    ),
    path("people/", reference_views.person_list, name="people"),
    path("people/<slug:slug>/", reference_views.person, name="person"),
    path("organisations/", reference_views.organisation_list, name="organisations"),
    path("organisations/<slug:slug>/", reference_views.organisation, name="organisation"),
    path("tags/", reference_views.tag_list, name="tags"),
    path("tags/<topic:slug>/", reference_views.tag, name="tag"),
    path("search/", views.search_page, name="search"),
    path("feed/", public_page(entry_feed), name="feed"),
    path("sitemap.xml", public_page(sitemap_index), name="sitemap"),
    path(
        "sitemap-<slug:section>.xml",
        public_page(reads=("p",))(sitemap_section),
        name="sitemap-section",
    ),
    path("robots.txt", views.robots_txt, name="robots"),
    path("api/", views.api_page, name="api"),
    path("api/openapi.json", api.openapi, name="api-openapi"),
    path("api/v1/", include(api.url_patterns())),
]
