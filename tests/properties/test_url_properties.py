"""Source URLs: the validator accepts only absolute http(s) addresses and never crashes, and
normalising a valid one gives one spelling per address."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.core.exceptions import ValidationError
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from glossary.fields import MAX_URL_LENGTH, WebURLValidator
from glossary.models import normalise_url

SCHEMES = st.sampled_from(["http", "https", "HTTP", "hTTps", "javascript", "data", "ftp", "file"])
LABEL = st.from_regex(r"\A[a-zA-Z0-9]([a-zA-Z0-9-]{0,20}[a-zA-Z0-9])?\Z")
HOSTS = st.one_of(
    st.lists(LABEL, min_size=1, max_size=4).map(lambda labels: ".".join([*labels, "example"])),
    st.ip_addresses(v=4).map(str),
    st.ip_addresses(v=6).map(lambda ip: f"[{ip}]"),
    st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12).map(
        lambda name: f"{name}.example"
    ),
    st.text(max_size=20),
)
PORTS = st.one_of(st.just(""), st.integers(0, 70000).map(lambda p: f":{p}"), st.text(max_size=5))
TAIL = st.text(st.characters(exclude_categories=["Cc", "Cs", "Zs", "Zl", "Zp"]), max_size=40)
# Anything, and often a control character (NUL among them) somewhere in it.
ANY_TAIL = st.one_of(
    st.text(max_size=40),
    st.tuples(st.text(max_size=10), st.characters(max_codepoint=0x9F), st.text(max_size=10)).map(
        "".join
    ),
)


@st.composite
def urlish(draw: st.DrawFn, tails: st.SearchStrategy[str] = TAIL) -> str:
    """Text shaped like a URL in every part, with anything in each part."""
    scheme, host, port = draw(SCHEMES), draw(HOSTS), draw(PORTS)
    userinfo = draw(st.sampled_from(["", "user@", "user:pw@"]))
    path, query, fragment = draw(tails), draw(tails), draw(tails)
    return f"{scheme}://{userinfo}{host}{port}/{path}?{query}#{fragment}"


ANY = st.one_of(urlish(ANY_TAIL), st.text(max_size=200), st.text(max_size=3000))

# Addresses the validator mostly accepts, so the properties of valid addresses are tried on
# hundreds of them: drawn from `urlish`'s every part, most were refused and Hypothesis gave up
# on the test (its filter_too_much health check) on an unlucky seed.
PLAUSIBLE = st.builds(
    "{}://{}{}{}/{}?{}#{}".format,
    st.sampled_from(["http", "https", "HTTP", "hTTps"]),
    st.sampled_from(["", "user@", "user:pw@"]),
    st.one_of(
        st.lists(LABEL, min_size=1, max_size=4).map(lambda labels: ".".join([*labels, "example"])),
        st.ip_addresses(v=4).map(str),
    ),
    st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}")),
    TAIL,
    TAIL,
    TAIL,
)


def valid(url: str) -> bool:
    try:
        WebURLValidator()(url)
    except ValidationError:
        return False
    return True


@settings(max_examples=300)
@given(ANY)
def test_the_validator_accepts_only_absolute_web_addresses_and_names_every_refusal(
    url: str,
) -> None:
    try:
        WebURLValidator()(url)
    except ValidationError as exc:
        assert exc.messages and all(exc.messages)
        return
    assert url.lower().startswith(("http://", "https://"))
    assert len(url) <= MAX_URL_LENGTH
    parts = urlsplit(url)
    assert parts.hostname
    assert (parts.port or 0) <= 65535  # reading it raises for a port out of range
    assert not any(ord(c) < 0x21 or 0x7F <= ord(c) < 0xA0 for c in url)


@settings(max_examples=300)
@given(PLAUSIBLE)
def test_normalising_a_valid_address_is_stable_and_keeps_it_valid(url: str) -> None:
    assume(valid(url))
    once = normalise_url(url)
    assert normalise_url(once) == once
    assert valid(once)
    parts = urlsplit(once)
    assert parts.scheme in ("http", "https")
    assert parts.hostname == parts.hostname.lower()
    assert parts.port not in ({"http": 80, "https": 443}[parts.scheme],)


@settings(max_examples=200)
@given(PLAUSIBLE, st.sampled_from(["", " ", "\t", "  \n"]))
def test_spelling_variants_of_one_valid_address_normalise_alike(url: str, pad: str) -> None:
    assume(valid(url))
    parts = urlsplit(url)
    shouted = url.replace(parts.scheme, parts.scheme.upper(), 1)
    assert normalise_url(f"{pad}{shouted}{pad}") == normalise_url(url)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://docs.example/a\x00b", "control character (U+0000)"),
        ("https://docs.example/\x1b[31m", "control character (U+001B)"),
        ("https://docs.example/\x85", "control character (U+0085)"),
        ("https://docs.example:70000/", "not a port number"),
    ],
)
def test_the_validator_names_what_django_lets_through(url: str, problem: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(problem)):
        WebURLValidator()(url)


@pytest.mark.parametrize("url", ["https://docs.example:65535/", "https://docs.example/é?q=ü"])
def test_the_validator_keeps_accepting_the_edges_of_valid(url: str) -> None:
    WebURLValidator()(url)
