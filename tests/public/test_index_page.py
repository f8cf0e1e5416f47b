"""The home page: an A–Z index with letter navigation, counts and recently updated entries."""

import time_machine

from glossary import publishing


def test_the_index_groups_entries_by_letter_with_counts(client, make_entry):
    for term in ("Alpha", "Apex", "Beta", "3D chip"):
        publishing.publish(make_entry(term, slug=term.lower().replace(" ", "-")))
    page = client.get("/").content.decode()
    assert '<h2 id="letter-a">A</h2>' in page
    assert '<a href="#letter-a"><span class="visually-hidden">Letter </span>A<small>' in page
    assert '>2<span class="visually-hidden"> entries</span>' in page
    assert '<h2 id="letter-other">#</h2>' in page
    index = page[page.index('<h2 id="letter-a">') :]
    assert index.index(">Alpha<") < index.index(">Apex<") < index.index(">Beta<")


def test_letters_without_entries_are_not_links(client, make_entry):
    publishing.publish(make_entry("Alpha", slug="alpha"))
    page = client.get("/").content.decode()
    assert 'href="#letter-z"' not in page
    assert '<span aria-hidden="true">Z<small>0</small></span>' in page


def test_recently_updated_lists_the_latest_significant_changes_first(client, make_entry):
    old, new = make_entry("Old", slug="old"), make_entry("New", slug="new")
    with time_machine.travel("2026-10-01 09:00Z", tick=False):
        publishing.publish(old)
    with time_machine.travel("2026-11-01 09:00Z", tick=False):
        publishing.publish(new)
    with time_machine.travel("2026-11-20 09:00Z", tick=False):
        publishing.publish(old, material=False)  # a typo fix does not count
    page = client.get("/").content.decode()
    recent = page[page.index("Recently updated") : page.index("</section>")]
    assert recent.index(">New<") < recent.index(">Old<")
    assert '<time datetime="2026-11-01">November 1, 2026</time>' in recent


def test_the_index_leaves_out_drafts(client, make_entry):
    make_entry("Hidden", slug="hidden")
    page = client.get("/").content.decode()
    assert "Hidden" not in page
    assert "No entries have been published yet." in page
