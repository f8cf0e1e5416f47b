"""Search over live versions only: term, aliases, summary, body, episode references and quotes.

One contract on both databases (`results`): every word must match (English
stems: "routing" finds "routes"), words in double quotes match as a phrase, a
match on the term or an alias ranks first (the exact term, then an exact alias,
then a term starting or containing the query), then by weight: term and aliases
above the summary, the summary above the body and references, the body above
quotes. Results come a page at a time, however many there are. When nothing
matches, the closest terms and aliases are offered instead (`fuzzy`), at most
`FUZZY_LIMIT` of them.

The indexes are kept when a version goes live or is withdrawn
(glossary.publishing calls `index_live` and `unindex`; `reindex_all` rebuilds
them, `manage.py rerender` runs it):

- PostgreSQL: `EntryVersion.search_vector`, a weighted tsvector with a GIN index,
  and a trigram (pg_trgm) GIN index on `EntryVersion.search_names` for
  misspellings and substrings of the term and aliases;
- SQLite: the FTS5 table `glossary_search` (porter stemmer; bm25 with the same
  weights, rowid = version id) and `glossary_search_names` (trigram tokenizer;
  candidates for misspellings, scored with rapidfuzz).

Every query still goes through `selectors.live_versions()`: an index row for a
version that is no longer live is never shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    SearchVector,
    TrigramWordSimilarity,
)
from django.db import connection
from django.db.models import (
    Case,
    F,
    Field,
    IntegerField,
    Q,
    QuerySet,
    TextField,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.lookups import Lookup
from rapidfuzz import fuzz

from glossary import document
from glossary.models import EntryVersion
from glossary.selectors import live_versions

MAX_QUERY_LENGTH = 200
# Misspellings: at most this many suggestions, each at least this close to a term or alias
# (PostgreSQL: pg_trgm's word similarity, default threshold 0.6; SQLite: rapidfuzz, 0-100).
FUZZY_LIMIT = 50
FUZZY_CUTOFF = 75.0
# Weights, highest first: term and aliases, summary, body and references, quotes.
# PostgreSQL's ts_rank weighs A..D as 1.0, 0.4, 0.2, 0.1; SQLite's bm25 gets the same
# proportions per column.
_WEIGHTS = {"term": "A", "aliases": "A", "summary": "B", "body": "C", "quotes": "D"}
_BM25 = "bm25(glossary_search, 10.0, 10.0, 4.0, 2.0, 1.0)"
# Names per version in glossary_search_names: rowid = version id * _NAMES + position.
_NAMES = 1024
_CONFIG = "english"

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


# --- Results ------------------------------------------------------------------------------


class Results:
    """The live entries a query finds, best first; sliced and counted by the database.

    Django's Paginator takes it as it is (`count()` and slices). `fuzzy` says the
    query matched nothing and these are the closest terms and aliases instead.
    """

    def __init__(self, q: str) -> None:
        self.query = q

    @cached_property
    def _found(self) -> tuple[QuerySet[EntryVersion, Any] | list[Hit], bool, int]:
        """(what was found, whether it is the misspelling fallback, how many)."""
        if not self.query:
            return [], False, 0
        exact = _matching(self.query)
        count = exact.count()
        if count:
            return exact, False, count
        closest = _closest(self.query)
        return closest, True, len(closest)

    @property
    def fuzzy(self) -> bool:
        return self._found[1]

    def count(self) -> int:
        return self._found[2]

    def __len__(self) -> int:
        return self._found[2]

    @overload
    def __getitem__(self, index: int) -> Hit: ...
    @overload
    def __getitem__(self, index: slice) -> list[Hit]: ...
    def __getitem__(self, index: int | slice) -> Hit | list[Hit]:
        found, fuzzy, _ = self._found
        if isinstance(found, list):
            return found[index]
        if isinstance(index, int):
            return self[index : index + 1][0]
        rows = found.values_list("term", "slug", "summary")[index]
        return [Hit(term=t, slug=s, summary=m, fuzzy=fuzzy) for t, s, m in rows]

    def __iter__(self) -> Iterator[Hit]:
        return iter(self[:])


def results(raw: str) -> Results:
    """Live entries matching `raw`, best first, to be paged through; empty for an empty query."""
    return Results(normalise_query(raw))


def search(raw: str, limit: int = 50) -> list[Hit]:
    """The first `limit` live entries matching `raw`, best first; an empty query finds nothing."""
    return results(raw)[:limit]


class _ILike(Lookup[str]):
    """`lhs ILIKE rhs`: unlike Django's icontains (UPPER(...) LIKE), a trigram index serves it."""

    lookup_name = "search_ilike"

    def as_sql(self, compiler: Any, connection: Any) -> Any:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} ILIKE {rhs}", [*lhs_params, *rhs_params]


def _names_contain(q: str) -> Q:
    if connection.vendor == "postgresql":
        escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return Q(_ILike(F("search_names"), f"%{escaped}%"))
    return Q(search_names__icontains=q)


def _title_rank(q: str) -> Case:
    """4 the term is the query, 3 an alias is, 2 the term starts with it, 1 contains it."""
    alias = r"(^|\n)" + re.escape(q) + r"(\n|$)"
    return Case(
        When(term__iexact=q, then=Value(4)),
        When(search_names__iregex=alias, then=Value(3)),
        When(term__istartswith=q, then=Value(2)),
        When(term__icontains=q, then=Value(1)),
        default=Value(0),
        output_field=IntegerField(),
    )


def _matching(q: str) -> QuerySet[EntryVersion]:
    if connection.vendor == "postgresql":
        return _matching_postgres(q)
    return _matching_sqlite(q)


def _closest(q: str) -> list[Hit]:
    if connection.vendor == "postgresql":
        return _closest_postgres(q)
    return _closest_sqlite(q)


# --- PostgreSQL ---------------------------------------------------------------------------


def _matching_postgres(q: str) -> QuerySet[EntryVersion]:
    query = SearchQuery(q, config=_CONFIG, search_type="websearch")
    return (
        live_versions()
        .filter(Q(search_vector=query) | _names_contain(q))
        .annotate(title=_title_rank(q), rank=SearchRank(F("search_vector"), query))
        .order_by("-title", "-rank", "term", "pk")
    )


def _closest_postgres(q: str) -> list[Hit]:
    similar = (
        live_versions()
        # `search_names %> q`: pg_trgm's word similarity, served by the trigram index.
        .filter(search_names__trigram_word_similar=q)
        .annotate(similarity=TrigramWordSimilarity(q, "search_names"))
        .order_by("-similarity", "term", "pk")
        .values_list("term", "slug", "summary")[:FUZZY_LIMIT]
    )
    return [Hit(term=t, slug=s, summary=m, fuzzy=True) for t, s, m in similar]


def _vector(fields: dict[str, str]) -> Any:
    parts = [
        SearchVector(Value(fields[name], output_field=TextField()), weight=w, config=_CONFIG)
        for name, w in _WEIGHTS.items()
    ]
    vector: Any = parts[0]
    for part in parts[1:]:
        vector = vector + part
    return vector


# --- SQLite -------------------------------------------------------------------------------

_TOKEN = re.compile(r'"([^"]*)"|(\S+)')
_WORD = re.compile(r"\w")


def fts_query(q: str) -> str:
    """`q` in FTS5's syntax with PostgreSQL's `websearch` meaning.

    Every word required, "a phrase" in double quotes, `or` between two words,
    `-word` excluded. Each word is quoted, so nothing the reader types is FTS5
    syntax; a word with no letter or digit in it is dropped.
    """
    out: list[str] = []
    pending_or = False
    for phrase, word in _TOKEN.findall(q):
        text = phrase if phrase else word
        if not phrase and text.lower() == "or":
            pending_or = bool(out)
            continue
        negate = not phrase and text.startswith("-")
        if negate:
            text = text[1:]
        if not _WORD.search(text):
            continue
        quoted = '"' + text.replace('"', '""') + '"'
        if not out:
            if negate:
                continue  # FTS5's NOT needs something to take away from
            out.append(quoted)
        elif negate:
            out.append(f"NOT {quoted}")
        else:
            out.append(f"{'OR' if pending_or else 'AND'} {quoted}")
        pending_or = False
    return " ".join(out)


def _matching_sqlite(q: str) -> QuerySet[EntryVersion]:
    match = fts_query(q)
    candidates = _names_contain(q)
    rank: Any = Value(None, output_field=Field())
    if match:
        # The reader's words are a parameter; the rest is constant.
        rows = "SELECT rowid FROM glossary_search WHERE glossary_search MATCH %s"
        candidates |= Q(pk__in=RawSQL(rows, [match]))  # noqa: S611
        score = (
            f"(SELECT {_BM25} FROM glossary_search WHERE glossary_search MATCH %s "  # noqa: S608
            'AND rowid = "glossary_entryversion"."id")'
        )
        rank = RawSQL(score, [match], output_field=Field())  # noqa: S611
    return (
        live_versions()
        .filter(candidates)
        .annotate(title=_title_rank(q), rank=rank)
        .order_by("-title", F("rank").asc(nulls_last=True), "term", "pk")
    )


def _trigrams(text: str) -> set[str]:
    folded = text.casefold()
    return {folded[i : i + 3] for i in range(len(folded) - 2) if folded[i : i + 3].strip()}


def _closest_sqlite(q: str) -> list[Hit]:
    grams = _trigrams(q)
    if not grams:
        return []
    match = " OR ".join('"' + g.replace('"', '""') + '"' for g in sorted(grams))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rowid, name FROM glossary_search_names WHERE glossary_search_names "
            "MATCH %s ORDER BY rank LIMIT 500",
            [match],
        )
        rows = cursor.fetchall()
    folded = q.casefold()
    best: dict[int, float] = {}
    for rowid, name in rows:
        candidate = str(name).casefold()
        score = fuzz.ratio(folded, candidate)
        if len(folded) >= 4:
            score = max(score, fuzz.partial_ratio(folded, candidate))
        if score >= FUZZY_CUTOFF:
            version = int(rowid) // _NAMES
            best[version] = max(best.get(version, 0.0), score)
    live = live_versions().filter(pk__in=list(best)).values_list("pk", "term", "slug", "summary")
    ranked = sorted(live, key=lambda r: (-best[r[0]], r[1], r[0]))[:FUZZY_LIMIT]
    return [Hit(term=t, slug=s, summary=m, fuzzy=True) for _, t, s, m in ranked]


def _sqlite_unindex(cursor: Any, pks: list[int]) -> None:
    for pk in pks:
        cursor.execute("DELETE FROM glossary_search WHERE rowid = %s", [pk])
        cursor.execute(
            "DELETE FROM glossary_search_names WHERE rowid BETWEEN %s AND %s",
            [pk * _NAMES, pk * _NAMES + _NAMES - 1],
        )


def _sqlite_index(cursor: Any, pk: int, fields: dict[str, str], names: list[str]) -> None:
    _sqlite_unindex(cursor, [pk])
    cursor.execute(
        "INSERT INTO glossary_search (rowid, term, aliases, summary, body, quotes) "
        "VALUES (%s, %s, %s, %s, %s, %s)",
        [pk, *(fields[name] for name in _WEIGHTS)],
    )
    for i, name in enumerate(names[:_NAMES]):
        cursor.execute(
            "INSERT INTO glossary_search_names (rowid, name) VALUES (%s, %s)",
            [pk * _NAMES + i, name],
        )


# --- Keeping the indexes --------------------------------------------------------------------


def index_live(version: EntryVersion, doc: document.EntryDocument | None = None) -> None:
    """Index `version` (whose document is `doc`), which has just gone live (in the
    publishing transaction)."""
    doc = doc or document.load(version.data)
    fields, names = doc.search_fields(), doc.search_names()
    if version.search_names != names:
        EntryVersion.objects.filter(pk=version.pk).update(search_names=names)
        version.search_names = names
    if connection.vendor == "postgresql":
        EntryVersion.objects.filter(pk=version.pk).update(search_vector=_vector(fields))
    elif connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            _sqlite_index(cursor, version.pk, fields, names.split("\n"))


def unindex(version: EntryVersion) -> None:
    """Forget `version`, no longer live (withdrawn, or replaced by a newer one)."""
    if connection.vendor == "postgresql":
        EntryVersion.objects.filter(pk=version.pk).update(search_vector=None)
    elif connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            _sqlite_unindex(cursor, [version.pk])


def reindex_all() -> int:
    """Rebuild the indexes from the live versions; how many were indexed."""
    if connection.vendor == "postgresql":
        EntryVersion.objects.exclude(search_vector=None).filter(live_for=None).update(
            search_vector=None
        )
    elif connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM glossary_search")
            cursor.execute("DELETE FROM glossary_search_names")
    count = 0
    for version in live_versions().only("pk", "data", "search_names").iterator(chunk_size=500):
        index_live(version)
        count += 1
    return count
