"""The entry page: the seed's semantics, dates, corrections, metadata and structured data."""

import json
import re

import pytest
import time_machine

from glossary import publishing
from glossary.models import Entry, Quote, SeeAlso, Source
from tests.live import make_live_unchecked

PUBLISHED = "2026-11-02T09:00:00+00:00"


@pytest.fixture
def page(client, demo) -> str:
    response = client.get("/glossary/interconnect/")
    assert response.status_code == 200
    return response.content.decode()


def jsonld(html: str) -> dict:
    match = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert match, "no JSON-LD on the page"
    return json.loads(match.group(1))


def test_the_term_is_a_definition_heading(page):
    assert '<h1 id="entry-term"><dfn>Interconnect</dfn></h1>' in page


def test_quotes_are_figures_with_the_attribution_outside_the_blockquote(page):
    figures = re.findall(r'<figure class="quote">(.*?)</figure>', page, re.S)
    assert len(figures) == 2
    for figure in figures:
        quote, caption = figure.split("</blockquote>")
        assert "<blockquote>" in quote and "Patel" not in quote and "Elangovan" not in quote
        assert "<figcaption>" in caption
    assert (
        'Jeetu Patel</a>, Cisco, <a href="https://podcast.example/audio/episode-44.mp3#t=1538"'
        in page
    )
    assert "Quotes lightly edited to remove filler words." in page


def test_the_edited_note_is_absent_when_no_quote_was_edited(client, demo):
    Quote.objects.update(lightly_edited=False)
    make_live_unchecked(Entry.objects.get(slug="interconnect"))
    assert "lightly edited" not in client.get("/glossary/interconnect/").content.decode()


def test_source_titles_are_cited_works_with_the_check_date_in_a_time_element(page):
    assert "<cite>NVIDIA: NVLink and NVLink Switch</cite>" in page
    assert 'checked <time datetime="2026-10-24">October 24, 2026</time>' in page


def test_timestamps_are_time_elements_with_hidden_context_for_screen_readers(page):
    assert '<time datetime="PT25M38S">25:38</time>' in page
    assert (
        '<span class="visually-hidden">Listen to episode 44 at </span>'
        '<time datetime="PT31M57S">31:57</time>'
    ) in page


def test_disclosures_sit_next_to_the_claim_they_qualify(page):
    claim = page.index("which he calls “scale across.”")
    disclosure = page.index("Cisco sells that networking")
    next_claim = page.index("AMD’s Anush Elangovan lists")
    assert claim < disclosure < next_claim
    assert page.index("sponsored by Galileo") < page.index("See also")


def test_see_also_links_only_to_published_entries(client, demo):
    target = Entry.objects.get(slug="ai-factory")
    publishing.unpublish(target)
    page = client.get("/glossary/interconnect/").content.decode()
    assert 'href="/glossary/ai-factory/"' not in page
    assert "See also AI factory and" in page
    assert 'href="/glossary/high-bandwidth-memory/"' in page
    assert "http://127.0.0.1:8000/glossary/ai-factory/" not in json.dumps(jsonld(page))


def test_the_page_shows_the_last_significant_change_not_a_typo_fix(client, make_entry):
    entry = make_entry("Widget", slug="widget")
    with time_machine.travel("2026-11-02 09:00Z", tick=False):
        make_live_unchecked(entry)
    with time_machine.travel("2026-11-20 09:00Z", tick=False):
        make_live_unchecked(entry, material=False)
    page = client.get("/glossary/widget/").content.decode()
    assert 'Last updated <time datetime="2026-11-02">November 2, 2026</time>' in page
    assert jsonld(page)["dateModified"] == PUBLISHED


def test_a_correction_note_is_shown_with_its_date_and_survives_a_later_typo_fix(client, make_entry):
    entry = make_entry("Widget", slug="widget")
    make_live_unchecked(entry)
    assert "Correction" not in client.get("/glossary/widget/").content.decode()
    with time_machine.travel("2026-11-10 09:00Z", tick=False):
        make_live_unchecked(entry, correction_note="An earlier version gave the wrong year.")
    make_live_unchecked(entry, material=False)
    page = client.get("/glossary/widget/").content.decode()
    assert "Correction</h2>" in page
    assert (
        '<time datetime="2026-11-10">November 10, 2026</time>: '
        "An earlier version gave the wrong year."
    ) in page


def test_a_correction_note_on_an_unpublished_version_is_not_shown(client, make_entry):
    entry = make_entry("Widget", slug="widget")
    make_live_unchecked(entry)
    version = publishing.save_version(entry)
    version.correction_note = "Not yet public"
    version.save()
    assert "Not yet public" not in client.get("/glossary/widget/").content.decode()


def test_the_head_has_title_description_canonical_and_open_graph(page):
    assert "<title>Interconnect — The Show Glossary</title>" in page
    assert '<meta name="description" content="The links between AI chips.' in page
    assert '<link rel="canonical" href="http://127.0.0.1:8000/glossary/interconnect/">' in page
    assert '<meta property="og:title" content="Interconnect">' in page
    assert '<meta property="og:type" content="article">' in page


def test_the_page_has_landmarks_and_a_skip_link(page):
    assert '<a class="skip visually-hidden" href="#main">' in page
    for landmark in ('<header class="site-header">', '<main id="main"', "<footer", 'role="search"'):
        assert landmark in page


def test_tags_link_to_tag_pages(page):
    assert '<a href="/tags/networking/" rel="tag">networking</a>' in page


def test_structured_data_is_a_web_page_about_a_defined_term(page):
    data = jsonld(page)
    assert data["@context"] == "https://schema.org"
    assert data["@type"] == "WebPage"
    term = data["mainEntity"]
    assert term["@type"] == "DefinedTerm"
    assert term["name"] == "Interconnect"
    assert term["termCode"] == "interconnect"
    assert term["inDefinedTermSet"]["@type"] == "DefinedTermSet"
    assert data["lastReviewed"] == "2026-10-24"
    assert [c["name"] for c in data["citation"]][0] == "NVLink and NVLink Switch"
    assert data["relatedLink"] == [
        "http://127.0.0.1:8000/glossary/ai-factory/",
        "http://127.0.0.1:8000/glossary/high-bandwidth-memory/",
    ]
    quotes = [p for p in data["hasPart"] if p["@type"] == "Quotation"]
    assert quotes[0]["creator"] == {
        "@type": "Person",
        "name": "Jeetu Patel",
        "url": "http://127.0.0.1:8000/people/jeetu-patel/",
        "worksFor": {"@type": "Organization", "name": "Cisco", "url": "https://www.cisco.com/"},
    }
    clip = quotes[0]["isBasedOn"]
    assert clip["@type"] == "Clip" and clip["startOffset"] == 1538
    episode = clip["partOfEpisode"]
    assert episode["@type"] == "PodcastEpisode" and episode["episodeNumber"] == 44
    assert episode["partOfSeason"]["seasonNumber"] == 3
    assert episode["sponsor"][0]["name"] == "Galileo"


def test_structured_data_cannot_close_its_script_element(client, make_entry):
    entry = make_entry("</script><script>alert(1)</script>", slug="evil", summary="a & b <c>")
    make_live_unchecked(entry)
    page = client.get("/glossary/evil/").content.decode()
    script = re.search(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    assert "<" not in script.group(1)
    assert jsonld(page)["name"] == "</script><script>alert(1)</script>"
    assert "<script>alert(1)" not in page


def test_a_dead_source_links_to_its_archived_copy(client, demo):
    source = Source.objects.get(url="https://ultraethernet.org/")
    source.citation_status = Source.CitationStatus.DEAD
    source.archive_url = "https://web.archive.org/web/2026/https://ultraethernet.org/"
    source.save()
    make_live_unchecked(Entry.objects.get(slug="interconnect"))
    page = client.get("/glossary/interconnect/").content.decode()
    assert 'href="https://web.archive.org/web/2026/https://ultraethernet.org/"' in page
    assert "no longer available as cited" in page


def test_an_old_slug_answers_301_and_an_alias_redirects(client, demo):
    entry = Entry.objects.get(slug="interconnect")
    entry.slug = "interconnects"
    entry.save()
    make_live_unchecked(entry)
    old = client.get("/glossary/interconnect/")
    assert old.status_code == 301 and old["Location"] == "/glossary/interconnects/"
    alias = client.get("/glossary/nvlink/")
    assert alias.status_code == 301 and alias["Location"] == "/glossary/interconnects/"


def test_an_alias_shared_by_two_entries_lists_both(client, make_entry):
    for term in ("Alpha", "Beta"):
        make_live_unchecked(make_entry(term, slug=term.lower(), aliases="Shared name"))
    response = client.get("/glossary/shared-name/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "“Shared name” may mean" in page
    assert 'href="/glossary/alpha/"' in page and 'href="/glossary/beta/"' in page


def test_a_draft_entry_is_404_in_the_site_design(client, make_entry):
    make_entry("Hidden", slug="hidden")
    response = client.get("/glossary/hidden/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Page not found" in page and 'class="site-header"' in page


def test_a_see_also_edit_note_with_markup_is_escaped(client, make_entry):
    a = make_entry("Alpha", slug="alpha")
    b = make_entry("Beta", slug="beta")
    make_live_unchecked(b)
    SeeAlso.objects.create(entry=a, target=b, note="<b>bold</b>")
    make_live_unchecked(a)
    assert "&lt;b&gt;bold&lt;/b&gt;" in client.get("/glossary/alpha/").content.decode()


def test_the_header_and_footer_link_the_rest_of_the_site(page):
    for link in (
        '<a href="/tags/">Tags</a>',
        '<a href="/episodes/">Episodes</a>',
        'action="/search/"',
        '<a href="/feed/">Atom feed</a>',
    ):
        assert link in page


def test_the_500_page_is_in_the_site_design(rf):
    from django.views.defaults import server_error

    response = server_error(rf.get("/"))
    page = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong" in page
    assert '<a href="/tags/">Tags</a>' in page


def test_a_tag_links_to_its_own_page_when_another_tags_name_differs_only_in_case(
    client, make_entry
):
    # taggit slugifies both to "ai" and suffixes the second: "ai" and "ai_1".
    first = make_entry("First", slug="first")
    first.tags.set(["AI"])
    second = make_entry("Second", slug="second")
    second.tags.set(["Ai"])
    make_live_unchecked(first)
    make_live_unchecked(second)
    slug = second.tags.get().slug
    assert slug != "ai"
    page = client.get("/glossary/second/").content.decode()
    assert f'href="/tags/{slug}/" rel="tag">Ai</a>' in page
    tag_page = client.get(f"/tags/{slug}/").content.decode()
    assert "Second" in tag_page and "First" not in tag_page


def test_a_body_that_quotes_json_ld_keeps_the_dates_in_the_structured_data_only(client, make_entry):
    body = 'A page declares itself with `"@type":"WebPage"` in its markup.'
    entry = make_entry("Markup", slug="markup", body=body)
    with time_machine.travel(PUBLISHED, tick=False):
        make_live_unchecked(entry)
    html = client.get("/glossary/markup/").content.decode()
    visible = html.split('<script type="application/ld+json">')[0]
    assert "datePublished" not in visible
    assert '<code>"@type":"WebPage"</code> in its markup.' in visible
    data = jsonld(html)
    assert data["datePublished"] == PUBLISHED
    assert data["dateModified"] == PUBLISHED
