"""The URLconf of a show's own site (glossary.show_site): the public site's own routes, at
the root of the show's host or under /shows/<slug>/ (the middleware strips the prefix and
makes it the script prefix, so every address reversed on the site carries it). No desk,
no previews: those are the network host's alone."""

from django.urls import include, path

from glossary import urls as network

urlpatterns = [path("", include((network.urlpatterns, "glossary")))]
