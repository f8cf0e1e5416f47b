"""Search over live versions only: term, aliases, summary, body, episode references and quotes.

On PostgreSQL: full-text search (English stemming, `websearch` syntax) ranked by
`ts_rank` with the term weighted above the summary and the summary above the
body; when nothing matches, a trigram fallback finds misspelt terms and words.
On SQLite: every word must appear somewhere, and misspellings fall back to
`difflib` over the terms and aliases. On both, a match on the term or an alias
ranks first.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    SearchVector,
    TrigramSimilarity,
    TrigramWordSimilarity,
)
from django.db import connection
from django.db.models import (
    Case,
    Exists,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Greatest

from glossary.models import EntryRedirect, EntryVersion
from glossary.selectors import live_versions

MAX_QUERY_LENGTH = 200
TRIGRAM_THRESHOLD = 0.3

# What a query cannot carry to the database: control characters (PostgreSQL text
# cannot hold NUL at all) and lone surrogates (they have no UTF-8 form). Whitespace
# among them (tab, newline) only separates words.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_WHITESPACE_CONTROLS = frozenset("\t\n\r")


@dataclass(frozen=True)
class Hit:
    term: str
    slug: str
    summary: str
    fuzzy: bool = False


def normalise_query(raw: str) -> str:
    """The query as searched: control characters become spaces, runs of spaces one."""
    return " ".join(_CONTROL.sub(" ", raw).split())[:MAX_QUERY_LENGTH]


def control_character(raw: str) -> tuple[int, str] | None:
    """The first character of `raw` a query may not contain, as (index, character).

    Tab, newline and carriage return are allowed: they separate words like spaces.
    """
    for match in _CONTROL.finditer(raw):
        if match.group() not in _WHITESPACE_CONTROLS:
            return match.start(), match.group()
    return None


def _title_rank(q: str) -> Case:
    alias = EntryRedirect.objects.filter(
        entry=OuterRef("entry"), kind=EntryRedirect.Kind.ALIAS, name__iexact=q
    )
    return Case(
        When(term__iexact=q, then=Value(4)),
        When(Exists(alias), then=Value(3)),
        When(term__istartswith=q, then=Value(2)),
        When(term__icontains=q, then=Value(1)),
        default=Value(0),
        output_field=IntegerField(),
    )


def search(raw: str, limit: int = 50) -> list[Hit]:
    """Live entries matching `raw`, best first; an empty query finds nothing."""
    q = normalise_query(raw)
    if not q:
        return []
    if connection.vendor == "postgresql":
        return _search_postgres(q, limit)
    return _search_simple(q, limit)


def _hits(qs: QuerySet[EntryVersion], limit: int, fuzzy: bool = False) -> list[Hit]:
    return [
        Hit(term=t, slug=s, summary=m, fuzzy=fuzzy)
        for t, s, m in qs.values_list("term", "slug", "summary")[:limit]
    ]


def _search_postgres(q: str, limit: int) -> list[Hit]:

    vector = (
        SearchVector("term", weight="A", config="english")
        + SearchVector("summary", weight="B", config="english")
        + SearchVector("search_text", weight="C", config="english")
    )
    query = SearchQuery(q, config="english", search_type="websearch")
    found = (
        live_versions()
        .annotate(document=vector, title=_title_rank(q), rank=SearchRank(vector, query))
        .filter(Q(document=query) | Q(title__gt=0))
        .order_by("-title", "-rank", "term")
    )
    hits = _hits(found, limit)
    if hits:
        return hits
    similar = (
        live_versions()
        .annotate(
            similarity=Greatest(
                TrigramSimilarity("term", q),
                TrigramWordSimilarity(q, "search_text"),
                output_field=FloatField(),
            )
        )
        .filter(similarity__gte=TRIGRAM_THRESHOLD)
        .order_by("-similarity", "term")
    )
    return _hits(similar, limit, fuzzy=True)


def _search_simple(q: str, limit: int) -> list[Hit]:
    condition = Q()
    for word in q.split():
        condition &= (
            Q(term__icontains=word) | Q(summary__icontains=word) | Q(search_text__icontains=word)
        )
    body_rank = Case(
        When(summary__icontains=q, then=Value(2)),
        When(search_text__icontains=q, then=Value(1)),
        default=Value(0),
        output_field=IntegerField(),
    )
    found = (
        live_versions()
        .annotate(title=_title_rank(q), body=body_rank)
        .filter(condition | Q(title__gt=0))
        .order_by("-title", "-body", F("term").asc())
    )
    hits = _hits(found, limit)
    if hits:
        return hits
    # Misspellings: the closest terms and aliases, as PostgreSQL's trigram fallback would.
    names: dict[str, tuple[str, str, str]] = {}
    for term, slug, summary, data in live_versions().values_list("term", "slug", "summary", "data"):
        for name in [term, *data["aliases"]]:
            names.setdefault(name.lower(), (term, slug, summary))
    close = difflib.get_close_matches(q.lower(), list(names), n=limit, cutoff=0.7)
    seen: set[str] = set()
    result = []
    for name in close:
        term, slug, summary = names[name]
        if slug not in seen:
            seen.add(slug)
            result.append(Hit(term=term, slug=slug, summary=summary, fuzzy=True))
    return result
