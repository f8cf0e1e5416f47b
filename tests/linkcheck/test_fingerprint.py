"""The content fingerprint follows the page's words, not its furniture."""

from __future__ import annotations

import random

import pytest

from editorial.linkcheck import fingerprint as fp
from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fingerprint import END_MARK, fingerprint, main_text, text_complete
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
    assert server.counters["/ad-rotating"] == 2  # each GET had another ad
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


# Pages whose body the streamed read may stop early on; each is a whole page.
_COMPLETE_AT = {
    "plain main": (page("Words."), "</main>"),
    "the pinned page": (PINNED_PAGE, "</main>"),
    "no main": ("<html><body><p>Just a body.</p><footer>f</footer></body></html>", "</body>"),
    "a script mentioning the end tags first": (
        '<html><body><script>var t = "</main></body>";</script><main>A.</main>'
        "<footer>f</footer></body></html>",
        "</main>",
    ),
    "a footer full of scripts": (
        "<html><body><main>Text.</main>" + "<script>x()</script>" * 50 + "</body></html>",
        "</main>",
    ),
    "trailing comment and whitespace after html": (
        "<html><body><main>T.</main></body></html>\n<!-- cache 10:15 -->\n",
        "</main>",
    ),
}
# Pages where an early `</main>` must not end the text: the fingerprint reads past it.
_NOT_COMPLETE_AT_MAIN = {
    "an article wrapping main": (
        "<html><body><article><main>Inner.</main><p>Also counted.</p></article></body></html>"
    ),
    "a main inside an ad block": (
        '<html><body><div class="ad"><main>Ad.</main></div><main>Real.</main></body></html>'
    ),
    "a comment still open": "<html><body><!-- <main>old</main> --><main>New.</main></body></html>",
    "a hidden main first": (
        "<html><body><main hidden>Draft.</main><main>Published.</main></body></html>"
    ),
    "articles first": "<html><body><article>One.</article><main>Two.</main></body></html>",
}


def _end_tags(html: str) -> list[int]:
    """The offsets just after each `</main>`, `</body>` and `</html>` in `html`."""
    return [m.end() for m in END_MARK.finditer(html.encode())]  # ASCII pages: same offsets


@pytest.mark.parametrize("name", sorted(_COMPLETE_AT) + sorted(_NOT_COMPLETE_AT_MAIN))
def test_a_prefix_called_complete_has_the_whole_pages_fingerprint(name: str) -> None:
    html = _COMPLETE_AT.get(name, (_NOT_COMPLETE_AT_MAIN.get(name, ""), ""))[0]
    for end in _end_tags(html):
        if text_complete(html[:end]):
            assert fingerprint(html[:end]) == fingerprint(html), html[:end]


@pytest.mark.parametrize("name", sorted(_COMPLETE_AT))
def test_the_text_is_complete_at_the_first_real_end_tag(name: str) -> None:
    html, tag = _COMPLETE_AT[name]
    first = next(end for end in _end_tags(html) if text_complete(html[:end]))
    assert html[:first].endswith(tag)
    assert "</main>" not in html[:first] or html.count("</main>") == html[:first].count("</main>")


@pytest.mark.parametrize("name", sorted(_NOT_COMPLETE_AT_MAIN))
def test_an_end_tag_the_fingerprint_reads_past_is_not_the_end(name: str) -> None:
    html = _NOT_COMPLETE_AT_MAIN[name]
    first = next(end for end in _end_tags(html) if text_complete(html[:end]))
    assert first > html.index("</main>") + len("</main>")


def test_a_prefix_that_does_not_end_at_an_end_tag_is_never_complete() -> None:
    html = page("Words.")
    assert not text_complete(html[: html.index("</main>")])
    assert not text_complete(html[: html.index("</main>") + 3])


def _first_drop_furniture(html: str) -> str:
    """The furniture pass as first written (a match object per tag): the reference."""
    kept: list[str] = []
    position = 0
    skipping: str | None = None
    depth = 0
    for match in fp._TAG.finditer(html):
        closing, name, attrs = match.groups()
        if skipping is not None:
            if name.lower() == skipping:
                if closing:
                    depth -= 1
                    if depth == 0:
                        skipping = None
                        position = match.end()
                elif not attrs.endswith("/"):
                    depth += 1
            continue
        if closing:
            continue
        name = name.lower()
        if name in fp._SKIP_TAGS:
            if attrs.endswith("/"):
                continue
        elif (
            not attrs
            or name in fp._VOID_TAGS
            or attrs.endswith("/")
            or not fp._AD_ATTRIBUTE.search(attrs)
        ):
            continue
        kept.append(html[position : match.start()])
        skipping, depth = name, 1
    if skipping is None:
        kept.append(html[position:])
    return "".join(kept)


_SOUP = [
    "<nav>", "</nav>", "<div class='ad'>", "<div>", "</div>", "<p>", "</p>", "text ",
    "<main>", "</main>", "<ins>", "</ins>", "<br/>", "<img src=x>", "<a title='<nav>'>",
    "</a>", "<div hidden>", "<section id=x>", "</section>", "<NAV>", "</Nav >", "<aside/>",
    '<span class="promo-x">', "</span>", "<", ">", '"', "'", "<b", "<!-- c -->",
    "<div class=ad/>", "<footer role=contentinfo>", "</footer>", "<div id='Ads'>", "ſ",
]  # fmt: skip


def test_the_furniture_pass_drops_exactly_what_the_first_implementation_dropped() -> None:
    rng = random.Random(12)
    pages = [PINNED_PAGE, page(), *(html for html, _ in _COMPLETE_AT.values())]
    pages += ["".join(rng.choice(_SOUP) for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    for html in pages:
        assert fp._drop_furniture(html) == _first_drop_furniture(html), html
