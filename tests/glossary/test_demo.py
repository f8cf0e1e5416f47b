"""The demo reproduces the seed entry faithfully, on a plain public page."""

from html.parser import HTMLParser
from pathlib import Path

import pytest

from demo.content import DEMO_EDITOR, DEMO_WRITER, load_demo
from glossary.models import Entry, EntryVersion, Episode, Quote, Source
from tests.live import make_live_unchecked

SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "000_f28e23b7ec49cb0e.txt"
SEED_FALLBACK = Path(__file__).resolve().parents[2] / "tests" / "data" / "seed_interconnect.txt"


def seed_lines() -> list[str]:
    path = SEED if SEED.exists() else SEED_FALLBACK
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


class VisibleText(HTMLParser):
    """The text a sighted reader sees: no scripts, styles or screen-reader-only spans."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden_depth = 0
        self.stack: list[bool] = []

    def handle_starttag(self, tag, attrs):
        if tag in {"br", "img", "meta", "link", "input", "hr"}:
            return
        hidden = (
            tag in {"script", "style", "head", "title"}
            or "visually-hidden" in (dict(attrs).get("class") or "").split()
        )
        self.stack.append(hidden)
        self.hidden_depth += hidden
        if tag in {"p", "li", "h1", "h2", "figcaption", "blockquote", "div", "section"}:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in {"br", "img", "meta", "link", "input", "hr"} or not self.stack:
            return
        self.hidden_depth -= self.stack.pop()
        if tag in {"p", "li", "h1", "h2", "figcaption", "blockquote"}:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.hidden_depth:
            self.parts.append(data)

    def text(self) -> str:
        return " ".join("".join(self.parts).split())


def visible_text(html: str) -> str:
    parser = VisibleText()
    parser.feed(html)
    return parser.text()


@pytest.fixture
def page(client, demo) -> str:
    response = client.get("/glossary/interconnect/")
    assert response.status_code == 200
    return visible_text(response.content.decode())


def normalise(line: str) -> str:
    return " ".join(line.lstrip("- ").split())


@pytest.mark.parametrize("index", range(len(seed_lines())))
def test_every_line_of_the_seed_is_on_the_public_page(page, index):
    assert normalise(seed_lines()[index]) in page


def test_the_seed_keeps_its_order_on_the_page(page):
    positions = [page.index(normalise(line)) for line in seed_lines()]
    assert positions == sorted(positions)


def test_the_demo_is_reachable_from_the_home_page(client, demo):
    home = client.get("/").content.decode()
    assert 'href="/glossary/interconnect/"' in home


def test_the_demo_shows_a_source_with_its_archived_copy_without_fetching_anything(client, demo):
    # load_demo reaches no network: the copy's address is demo data (docs/archive.md).
    page = client.get("/glossary/ai-factory/").content.decode()
    archived = (
        "https://web.archive.org/web/20261024150000/https://example.org/glossary-demo/ai-factory"
    )
    assert (
        f'<a class="archive" href="{archived}" rel="noopener">Archived copy, '
        '<time datetime="2026-10-24">October 24, 2026</time></a>'
    ) in page


def test_loading_the_demo_twice_changes_nothing(demo):
    counts = (Entry.objects.count(), EntryVersion.objects.count(), Source.objects.count())
    assert load_demo()["published"] == 0
    assert (Entry.objects.count(), EntryVersion.objects.count(), Source.objects.count()) == counts


def test_the_demo_publishes_through_the_workflow_approved_by_someone_else(demo):
    """Its text is the demo writer's, submitted by them; the demo editor approved it."""
    from editorial.models import WorkflowEvent

    for entry in Entry.objects.filter(live_version__isnull=False).select_related(
        "live_version__created_by", "live_version__published_by"
    ):
        version = entry.live_version
        assert version.created_by.username == DEMO_WRITER, entry.slug
        assert version.published_by.username == DEMO_EDITOR, entry.slug
        steps = list(
            WorkflowEvent.objects.filter(entry=entry).order_by("pk").values_list("action", "actor")
        )
        assert [a for a, _ in steps[-2:]] == ["submit", "publish"], entry.slug
        assert steps[-1][1] == version.published_by_id != version.created_by_id


def test_an_entry_withdrawn_on_the_desk_stays_withdrawn_when_the_demo_loads_again(demo, editor):
    from editorial import workflow

    entry = Entry.objects.get(slug="interconnect")
    workflow.unpublish_entry(entry, user=editor, comment="Taken down on the desk.")
    assert load_demo()["published"] == 0
    entry.refresh_from_db()
    assert not entry.is_live


def test_the_demo_has_the_seeds_data_as_data(demo):
    entry = Entry.objects.get(slug="interconnect")
    assert entry.is_live
    ep28 = Episode.objects.get(number=28)
    assert ep28.season == 2
    assert [(s.organisation.name, s.read_at) for s in ep28.sponsorships.all()] == [("Galileo", 5)]
    quotes = list(Quote.objects.filter(entry=entry))
    assert [(q.speaker.name, q.episode.number, q.start) for q in quotes] == [
        ("Jeetu Patel", 44, 1538),
        ("Anush Elangovan", 28, 187),
    ]
    assert all(q.lightly_edited for q in quotes)
    assert [
        a.affiliation.name for q in quotes for a in q.episode.appearances.filter(person=q.speaker)
    ] == ["Cisco", "AMD"]
    disclosure_times = sorted(d.at for d in entry.disclosures.all() if d.at is not None)
    assert disclosure_times == [1917]
    assert {c.checked_on.isoformat() for c in entry.citations.all()} == {"2026-10-24"}
    assert [s.target.slug for s in entry.see_also.all()] == ["ai-factory", "high-bandwidth-memory"]


def test_the_demo_has_enough_entries_for_index_tags_and_search(demo):
    live = Entry.objects.published()
    assert live.count() >= 13
    assert live.filter(tags__name="networking").count() >= 5


def test_the_sponsorship_sentence_is_derived_from_episode_data(client, demo):
    ep28 = Episode.objects.get(number=28)
    ep28.sponsorships.update(read_at=9)

    make_live_unchecked(Entry.objects.get(slug="interconnect"))
    page = visible_text(client.get("/glossary/interconnect/").content.decode())
    assert "Episode 28 is a Season 2 episode sponsored by Galileo (intro at 0:09)." in page


def test_timestamp_links_play_the_episode_audio_from_that_second(client, demo):
    html = client.get("/glossary/interconnect/").content.decode()
    assert 'href="https://podcast.example/audio/episode-44.mp3#t=1538"' in html
    assert 'href="https://podcast.example/audio/episode-44.mp3#t=1917"' in html
    assert '<time datetime="PT31M57S">31:57</time>' in html
    assert "Listen to episode 44 at" in html


def test_every_demo_entry_passes_its_own_publish_checks(demo):
    # An editor's first dashboard should not be a wall of red: every demo entry has a
    # checked source and nothing else blocking.
    import datetime

    from django.utils import timezone

    from editorial.gates import blocking_failures, run_gates

    now = timezone.make_aware(datetime.datetime(2026, 11, 30, 12))
    failing = {
        entry.slug: [r.message for r in blocking_failures(run_gates(entry, now=now))]
        for entry in Entry.objects.all()
    }
    assert {slug: msgs for slug, msgs in failing.items() if msgs} == {}
    assert Entry.objects.count() == 13
