"""Slugs: a term's slug and every alias's redirect are addresses the site can serve."""

from __future__ import annotations

import itertools

import pytest
from django.core.validators import validate_slug
from django.test import Client
from django.urls import resolve, reverse
from django.utils.text import slugify
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from glossary.models import Entry
from tests.live import make_live_unchecked

TERMS = st.text(max_size=200)
# Alias text as an editor may type it: anything on one line, within what the entry
# form accepts (editorial.admin.forms.ConflictCheckingForm.clean_aliases).
# (A NUL never gets this far: Django's form fields refuse it.)
ALIAS = st.text(st.characters(exclude_characters="\x00\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))
ALIASES = st.lists(
    ALIAS.filter(lambda a: len(a.strip()) <= 200 and len(slugify(a.strip())) <= 200),
    max_size=4,
)


def assert_serves(slug: str) -> None:
    validate_slug(slug)
    path = reverse("glossary:entry", args=[slug])
    assert resolve(path).kwargs == {"slug": slug}


@settings(max_examples=300)
@given(TERMS)
def test_a_term_gives_a_slug_the_entry_page_serves_or_none(term: str) -> None:
    entry = Entry(term=term)
    entry.clean()
    assert len(entry.slug) <= 200
    if entry.slug:
        assert_serves(entry.slug)


_numbers = itertools.count()


@pytest.mark.django_db
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(aliases=ALIASES)
def test_every_alias_of_a_published_entry_leads_to_it(aliases: list[str]) -> None:
    n = next(_numbers)
    slug = f"prop-entry-{n}"
    assume(all(not slugify(a.strip()).startswith("prop-entry") for a in aliases))
    entry = Entry.objects.create(term=f"Prop {n}", slug=slug, aliases="\n".join(aliases))
    make_live_unchecked(entry)
    client = Client()
    for alias in entry.alias_list():
        alias_slug = slugify(alias)
        if not alias_slug or alias_slug == slug:
            continue
        assert_serves(alias_slug)
        response = client.get(f"/glossary/{alias_slug}/")
        if response.status_code == 301:
            assert response["Location"] == f"/glossary/{slug}/"
        else:
            # An alias other entries share lists them all.
            assert response.status_code == 200
            assert f'href="/glossary/{slug}/"' in response.content.decode()
