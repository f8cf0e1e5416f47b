"""The home page: an A–Z index with letter navigation, counts and recently updated entries."""

import re

import pytest
import time_machine
from django.urls import set_script_prefix

from glossary import publishing
from tests.live import make_live_unchecked


def test_the_index_groups_entries_by_letter_with_counts(client, make_entry):
    for term in ("Alpha", "Apex", "Beta", "3D chip"):
        make_live_unchecked(make_entry(term, slug=term.lower().replace(" ", "-")))
    page = client.get("/").content.decode()
    assert '<h2 id="letter-a">A</h2>' in page
    assert '<a href="#letter-a"><span class="visually-hidden">Letter </span>A<small>' in page
    assert '>2<span class="visually-hidden"> entries</span>' in page
    assert '<h2 id="letter-other">#</h2>' in page
    index = page[page.index('<h2 id="letter-a">') :]
    assert index.index(">Alpha<") < index.index(">Apex<") < index.index(">Beta<")


def test_letters_without_entries_are_not_links(client, make_entry):
    make_live_unchecked(make_entry("Alpha", slug="alpha"))
    page = client.get("/").content.decode()
    assert 'href="#letter-z"' not in page
    assert '<span aria-hidden="true">Z<small>0</small></span>' in page


def test_recently_updated_lists_the_latest_significant_changes_first(client, make_entry):
    old, new = make_entry("Old", slug="old"), make_entry("New", slug="new")
    with time_machine.travel("2026-10-01 09:00Z", tick=False):
        make_live_unchecked(old)
    with time_machine.travel("2026-11-01 09:00Z", tick=False):
        make_live_unchecked(new)
    with time_machine.travel("2026-11-20 09:00Z", tick=False):
        make_live_unchecked(old, material=False)  # a typo fix does not count
    page = client.get("/").content.decode()
    recent = page[page.index("Recently updated") : page.index("</section>")]
    assert recent.index(">New<") < recent.index(">Old<")
    assert '<time datetime="2026-11-01">November 1, 2026</time>' in recent


def test_the_recently_updated_list_follows_what_is_live_and_where_the_site_is_mounted(
    client, make_entry, no_page_cache
):
    """It is kept per process for the rows it was made from: a publish or a withdrawal
    shows at once, and a site mounted under a prefix links under it."""

    def recent() -> str:
        page = client.get("/").content.decode()
        return page[page.index("Recently updated") : page.index("</section>")]

    old = make_entry("Old", slug="old")
    make_live_unchecked(old)
    assert 'href="/glossary/old/"' in recent()
    new = make_entry("New", slug="new")
    make_live_unchecked(new)
    assert 'href="/glossary/new/"' in recent()
    publishing.unpublish(new)
    assert ">New<" not in recent() and 'href="/glossary/old/"' in recent()
    # (Django's WSGI handler sets the prefix from SCRIPT_NAME; the test client does not.)
    set_script_prefix("/desk/")
    try:
        assert 'href="/desk/glossary/old/"' in recent()
    finally:
        set_script_prefix("/")
    assert 'href="/glossary/old/"' in recent()


def test_the_index_leaves_out_drafts(client, make_entry):
    make_entry("Hidden", slug="hidden")
    page = client.get("/").content.decode()
    assert "Hidden" not in page
    assert "No entries have been published yet." in page


def test_every_page_of_the_index_continues_where_the_last_ended(client, make_entry, monkeypatch):
    """A page starts inside a letter (its count says where) and reads on into the next."""
    from glossary import views

    monkeypatch.setattr(views, "INDEX_PAGE_SIZE", 3)
    terms = ["zeta", "Byte", "3D chip", "Aria", "42", "bolt", "alpha", "Cache", "Apex", "Beta"]
    for term in terms:
        make_live_unchecked(make_entry(term, slug=term.lower().replace(" ", "-")))
    shown = []
    for number in range(1, 5):
        page = client.get("/", {"page": number} if number > 1 else {}).content.decode()
        groups = page[page.index('<section class="index-group"') :]
        shown += re.findall(r'<li><a href="/glossary/[^"]+/">([^<]+)</a>', groups)
    # "#" (digits and symbols) first, then A to Z whatever the case.
    assert shown == ["3D chip", "42", "alpha", "Apex", "Aria", "Beta", "bolt", "Byte", "Cache"] + [
        "zeta"
    ]
    assert client.get("/", {"page": 5}).status_code == 404
    first = client.get("/").content.decode()
    # B starts on page 2 (3D chip, 42, alpha | Apex, Aria, Beta | ...): its link goes there.
    assert 'href="/?page=2#letter-b"' in first
    assert 'href="/?page=4#letter-z"' in first
    assert 'href="#letter-a"' in first


@pytest.mark.parametrize("page", ["2", "0", "two", "+1"])
def test_a_page_the_index_does_not_have_is_missing_and_the_404_says_which_pages_there_are(
    rf, make_entry, no_page_cache, page
):
    from django.http import Http404

    from glossary import views

    make_live_unchecked(make_entry("Alpha", slug="alpha"))
    with pytest.raises(Http404, match=f"no page '{re.escape(page)}' here; pages run 1 to 1"):
        views.home(rf.get("/", {"page": page}))
