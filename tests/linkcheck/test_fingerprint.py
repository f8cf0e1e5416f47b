"""The content fingerprint follows the page's words, not its furniture."""

from __future__ import annotations

import pytest

from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fingerprint import fingerprint, main_text
from tests.linkcheck.helpers import check_one
from tests.linkcheck.server import LocalSite, page


def test_markup_scripts_styles_and_whitespace_do_not_count() -> None:
    a = "<html><body><main><p>The  text.</p></main><script>x=1</script></body></html>"
    b = (
        "<html><head><style>p{}</style></head>"
        "<body><main>\n<div><b>The</b>\ntext.</div></main></body></html>"
    )
    assert fingerprint(a) == fingerprint(b)


def test_an_ad_slot_change_does_not_count() -> None:
    assert fingerprint(page(ad="Buy A")) == fingerprint(page(ad="Buy B"))
    html = (
        '<main><p>Words.</p><ins class="adsbygoogle">one</ins><div data-ad-slot="1">x</div></main>'
    )
    assert main_text(html) == "words."


def test_clock_times_and_timestamps_do_not_count() -> None:
    assert fingerprint(page(clock="10:15")) == fingerprint(page(clock="22:47:01"))
    assert fingerprint("<p>Seen 2026-11-30T06:20:00Z.</p>") == fingerprint(
        "<p>Seen 2026-12-01T09:00:00+01:00.</p>"
    )


def test_a_change_in_the_main_text_counts() -> None:
    assert fingerprint(page("The bandwidth is 900 GB/s.")) != fingerprint(
        page("The bandwidth is 1.8 TB/s.")
    )


def test_a_page_with_no_text_has_no_fingerprint() -> None:
    assert fingerprint("<html><script>only()</script></html>") == ""


@pytest.mark.usefixtures("allow_loopback")
def test_a_page_whose_text_changes_gets_a_new_fingerprint(server: LocalSite) -> None:
    first = check_one(server.url("/changing"))
    second = check_one(server.url("/changing"))
    assert first.outcome is second.outcome is Outcome.OK
    assert first.fingerprint and second.fingerprint
    assert first.fingerprint != second.fingerprint


@pytest.mark.usefixtures("allow_loopback")
def test_a_page_where_only_the_ad_changes_keeps_its_fingerprint(server: LocalSite) -> None:
    first = check_one(server.url("/ad-rotating"))
    second = check_one(server.url("/ad-rotating"))
    assert server.counters["/ad-rotating"] == 4  # HEAD+GET twice: each GET had another ad
    assert first.fingerprint == second.fingerprint != ""


def test_an_ad_slot_is_dropped_with_everything_nested_inside_it() -> None:
    html = (
        '<main><div class="ad-wrapper"><div><div>Buy</div> now</div>still the ad</div>'
        "<p>Kept text.</p></main>"
    )
    assert main_text(html) == "kept text."


# Computed by the first implementation; stored fingerprints are compared with new ones,
# so a faster fingerprint must give exactly the same hash or every confirmed source
# would be flagged "changed since confirmed" after an upgrade.
PINNED_PAGE = """<!doctype html><html><head><title>T</title><style>p{}</style></head><body>
<nav><a href="/">Home</a><nav>inner</nav></nav><header role=banner>Site</header>
<div class="ad-slot" data-ad-slot="1"><p>Buy <b>now</b></p></div><ins class=adsbygoogle></ins>
<main><h1>Interconnect</h1><p>An <em>interconnect</em> links two networks &amp; carries traffic.</p>
<p hidden>secret</p><img src=x alt="a"/><p>Updated 10:15 pm, 2026-11-30T09:00:00Z.</p>
<aside>related</aside><a title="<nav>" href="/x">see also</a><br/></main>
<footer>© 2026</footer><script>var a = "<main>";</script></body></html>"""


def test_the_fingerprint_of_a_known_page_never_changes_between_versions() -> None:
    assert (
        fingerprint(PINNED_PAGE)
        == "9811bf46fac87d2420cf9e3c2dd50ddadbb007eb6697675487ffeb60581c7988"
    )
    assert fingerprint(PINNED_PAGE, "text/plain") != fingerprint(PINNED_PAGE)
