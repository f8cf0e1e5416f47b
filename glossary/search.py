"""Search over live versions only: term, aliases, summary, body, episode references and quotes.

One contract on both databases (`results`): every word must match (English
stems: "routing" finds "routes"), words in double quotes match as a phrase, `or`
and `-word` as in PostgreSQL's `websearch` syntax. Results are ranked in tiers,
and A–Z (the index's order) within a tier:

1. names: the exact term, then an exact alias, then terms starting with the
   query, then terms or aliases containing it;
2. then by where every word is found: in the term or aliases; in those or the
   summary; in those, the body or the episode references; anywhere, quotes
   included.

Results come a page at a time. A page reads at most as many rows as it needs
(each tier is one indexed query, in A–Z order, and later tiers are not read once
the page is full), so the first page of a word in every entry costs what a rare
word costs. The total is counted up to `COUNT_LIMIT` (`count_exact` says whether
there are more); every page stays reachable. When nothing matches, the closest
terms and aliases are offered instead (`fuzzy`), at most `FUZZY_LIMIT` of them.

The indexes live in the live listing (glossary.listing_index; glossary.models.Listing)
and are kept when a version goes live or is withdrawn (glossary.publishing calls
`index_live` and `unindex`; `reindex_all` rebuilds them, `manage.py rerender`
runs it):

- PostgreSQL: four cumulative weighted tsvectors per listing (`words_a` term and
  aliases; `words_ab` and the summary; `words_abc` and body and references;
  `words_abcd` and quotes), with GIN indexes on all but `words_abc` (its tier
  reads the whole's index), so each tier is one indexed condition; and a trigram
  (pg_trgm) GIN index over the term and aliases (`Listing.names`) for substrings
  and misspellings;
- SQLite: the FTS5 table `glossary_search` (porter stemmer, rowid = version id;
  a tier is a column filter) and `glossary_search_names` (trigram tokenizer;
  candidates for misspellings, scored with rapidfuzz).

Every query reads only listing rows of live versions (glossary.listing_reads, `_IS_LIVE`):
an index row for a version that is no longer live is never shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from html import escape as _escape
from typing import Any, Literal, overload

from django.db import connection
from rapidfuzz import fuzz

from glossary import document, listing_index, listing_reads, selectors
from glossary.models import EntryVersion

MAX_QUERY_LENGTH = 200
# Misspellings: at most this many suggestions, each at least this close to a term or alias
# (PostgreSQL: pg_trgm's word similarity, default threshold 0.6; SQLite: rapidfuzz, 0-100).
FUZZY_LIMIT = 50
FUZZY_CUTOFF = 75.0
# The total is counted up to this many (two pages); past it a search says "more than 100"
# and every further page is still there, following "next". Counting further costs, for a
# word in every entry, a row read per row counted.
COUNT_LIMIT = 100
# Names per version in glossary_search_names: rowid = version id * _NAMES + position.
_NAMES = 1024
_CONFIG = "english"
# The PostgreSQL tsquery of the reader's words, folded to a constant when planned.
_TSQUERY = f"websearch_to_tsquery('{_CONFIG}'::regconfig, %s)"
# The cumulative vectors by weight, and SQLite's columns for the same tiers.
_WORDS = ["words_a", "words_ab", "words_abc", "words_abcd"]
_FTS_COLUMNS = ["{term aliases}", "{term aliases summary}", "{term aliases summary body}", ""]
_A_TO_Z = "l.initial, l.sort_key, l.term, l.version_id"

# What a query cannot carry to the database: control characters (PostgreSQL text
# cannot hold NUL at all) and lone surrogates (they have no UTF-8 form). Whitespace
# among them (tab, newline) only separates words.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_WHITESPACE_CONTROLS = frozenset("\t\n\r")


@dataclass(frozen=True)
class Hit:
    """A live entry found: its address, and its rows as the search page and API show them."""

    term: str
    slug: str
    row_html: str
    api_row: str
    fuzzy: bool = False
    # The version's search text, read with the page's row: what the search page marks the
    # row with (`marked_rows`). None when only the API's row was read.
    text: str | None = None


# What a hit is read with: its rows as both the page and the API show them, or one of them
# (the other left empty): a page of hits reads fifty of each, and each consumer shows one.
# The page's row comes with the version's search text, to mark it with.
Shows = Literal["row_html", "api_row", "both"]
_TEXT = listing_reads.SEARCH_TEXT
_HIT_COLUMNS: dict[str, str] = {
    "both": f"l.term, l.slug, l.row_html, {_TEXT}, l.api_row",
    "row_html": f"l.term, l.slug, l.row_html, {_TEXT}",
    "api_row": "l.term, l.slug, l.api_row",
}


def _hit(row: tuple[Any, ...], shows: Shows, *, fuzzy: bool = False) -> Hit:
    if shows == "api_row":
        term, slug, api_row = row
        return Hit(term, slug, "", api_row, fuzzy=fuzzy)
    term, slug, row_html, text, *api_row = row
    return Hit(term, slug, row_html, "".join(api_row), fuzzy=fuzzy, text=text)


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


@dataclass(frozen=True)
class _Tier:
    """One tier of the ranking: which rows (`where`) and their order within it.

    `past_first` (the second tier's): its condition but for leaving out the first tier's
    rows, which the first page's statement leaves out by id instead
    (listing_reads.live_listing_two_tiers).
    """

    where: str
    params: list[Any]
    order: str = "l.initial, l.sort_key, l.term, l.version_id"
    order_params: tuple[Any, ...] = ()
    past_first: tuple[str, list[Any]] | None = None


class Results:
    """The live entries a query finds, best first, read a page at a time.

    Slicing reads only the tiers the slice reaches; `count()` counts up to
    COUNT_LIMIT (`count_exact` says whether that is all). `fuzzy` says the query
    matched nothing and these are the closest terms and aliases instead.
    """

    def __init__(self, q: str, shows: Shows = "both") -> None:
        self.query = q
        self.shows = shows
        # The misspelling fallback, once the query is known to match nothing.
        self._closest: list[Hit] | None = None
        self._counted: int | None = None
        self._matched = False  # a slice found something: the query matches
        self._sizes: dict[int, int] = {}  # tier -> its size, once read to its end

    @cached_property
    def _tiers(self) -> list[_Tier]:
        return _tiers(self.query) if self.query else []

    def _nothing_matched(self) -> None:
        self._closest = _closest(self.query, self.shows) if self.query else []
        self._counted = len(self._closest)

    @property
    def fuzzy(self) -> bool:
        if self._closest is None and not self._matched and self._counted is None:
            self[0:1]
        return bool(self._closest)

    def count(self) -> int:
        """How many entries match, up to COUNT_LIMIT."""
        if self._counted is None:
            self._counted = _count(self._tiers, COUNT_LIMIT + 1, self._sizes)
            if not self._counted:
                self._nothing_matched()
        return min(self._counted or 0, COUNT_LIMIT)

    @property
    def count_exact(self) -> bool:
        self.count()
        return (self._counted or 0) <= COUNT_LIMIT

    def __len__(self) -> int:
        return self.count()

    @overload
    def __getitem__(self, index: int) -> Hit: ...
    @overload
    def __getitem__(self, index: slice) -> list[Hit]: ...
    def __getitem__(self, index: int | slice) -> Hit | list[Hit]:
        if isinstance(index, int):
            return self[index : index + 1][0]
        start = index.start or 0
        stop = self.count() if index.stop is None else index.stop
        if self._closest is None and stop > start:
            rows = _read(self._tiers, _HIT_COLUMNS[self.shows], start, stop, self._sizes)
            hits = [_hit(row, self.shows) for row in rows]
            self._matched = self._matched or bool(hits)
            if hits or start > 0:
                return hits
            self._nothing_matched()
        return (self._closest or [])[start:stop]

    def __iter__(self) -> Iterator[Hit]:
        return iter(self[: self.count()])


def results(raw: str, shows: Shows = "both") -> Results:
    """Live entries matching `raw`, best first, to be paged through; empty for an empty query.

    `shows`: which of a hit's rows to read (the other is left empty)."""
    return Results(normalise_query(raw), shows)


def search(raw: str, limit: int = 50) -> list[Hit]:
    """The first `limit` live entries matching `raw`, best first; an empty query finds nothing."""
    return results(raw)[:limit]


def _like(text: str) -> str:
    """`text` as a LIKE pattern matching itself (the statements say ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _names_contain(q: str) -> tuple[str, list[Any]]:
    """The term or an alias contains the query (PostgreSQL: ILIKE, served by the trigram index)."""
    op = "ILIKE" if connection.vendor == "postgresql" else "LIKE"
    return f"l.names {op} %s ESCAPE '\\'", [f"%{_like(q)}%"]


def _name_class(q: str) -> tuple[str, list[Any]]:
    """4 the term is the query, 3 an alias is, 2 the term starts with it, 1 a name contains
    it, 0 none does (its words are in the names: stems)."""
    op = "ILIKE" if connection.vendor == "postgresql" else "LIKE"
    sql = (
        "CASE WHEN l.sort_key = %s THEN 4 "
        f"WHEN (%s || l.names || %s) {op} %s ESCAPE '\\' THEN 3 "
        f"WHEN l.term {op} %s ESCAPE '\\' THEN 2 "
        f"WHEN l.names {op} %s ESCAPE '\\' THEN 1 ELSE 0 END"
    )
    return sql, [q.lower(), "\n", "\n", f"%\n{_like(q)}\n%", f"{_like(q)}%", f"%{_like(q)}%"]


def _tiers(q: str) -> list[_Tier]:
    """Each tier as one condition, best first; each excludes every tier before it.

    The first holds every match in the names: the query in the term or an alias, or every
    word of it (stems) in them; the others every word in the summary or above, the body
    or above, anywhere.
    """
    names, names_params = _names_contain(q)
    name_class, class_params = _name_class(q)
    not_names = f"NOT ({names})"
    order = f"{name_class} DESC, {_A_TO_Z}"
    tiers: list[_Tier] = []
    if connection.vendor == "postgresql":
        # A smaller vector can miss a word the query excludes (`-word`): the whole must match.
        whole = f" AND l.{_WORDS[-1]} @@ {_TSQUERY}" if _negates(q) else ""
        whole_params = [q] if whole else []
        in_names = f"l.{_WORDS[0]} @@ {_TSQUERY}{whole}"
        first = [*names_params, q, *whole_params]
        tiers.append(_Tier(f"({names} OR ({in_names}))", first, order, tuple(class_params)))
        for k, words in enumerate(_WORDS[1:], start=1):
            earlier = _earlier(_WORDS[:k], q)
            where = f"l.{words} @@ {_TSQUERY}"
            where += "".join(f" AND NOT (l.{e} @@ {_TSQUERY})" for e in earlier)
            where += f" AND {not_names}"
            params: list[Any] = [q, *(q for _ in earlier), *names_params]
            if words == "words_abc":
                # Implied, and indexed: the body's words have no index of their own.
                where += f" AND l.{_WORDS[-1]} @@ {_TSQUERY}"
                params.append(q)
            elif whole and words != _WORDS[-1]:
                where += whole
                params += whole_params
            past_first = None
            if k == 1:
                past_first = (f"l.{words} @@ {_TSQUERY}{whole}", [q, *whole_params])
            tiers.append(_Tier(where, params, past_first=past_first))
        return tiers
    match = fts_query(q)
    if not match:
        return [_Tier(names, names_params, order, tuple(class_params))]
    found = "l.version_id IN (SELECT rowid FROM glossary_search WHERE glossary_search MATCH %s)"
    # The whole query must match too: a column filter can miss an excluded word.
    in_names = f"{found} AND {found}"
    tiers.append(
        _Tier(
            f"({names} OR ({in_names}))",
            [*names_params, match, f"{_FTS_COLUMNS[0]} : ({match})"],
            order,
            tuple(class_params),
        )
    )
    for k, columns in enumerate(_FTS_COLUMNS[1:], start=1):
        in_columns = f"{columns} : ({match})" if columns else match
        earlier = _earlier(_FTS_COLUMNS[:k], q)
        where = f"{found} AND {found}" + "".join(f" AND NOT ({found})" for _ in earlier)
        where += f" AND {not_names}"
        params = [match, in_columns, *(f"{e} : ({match})" for e in earlier), *names_params]
        past_first = None
        if k == 1:
            past_first = (f"{found} AND {found}", [match, in_columns])
        tiers.append(_Tier(where, params, past_first=past_first))
    return tiers


def _earlier(parts: list[str], q: str) -> list[str]:
    """Which of the earlier tiers' parts (vectors, column filters) a tier leaves out.

    The parts are cumulative, so a plain query found in one is found in every later one
    and leaving out the tier just before leaves out them all. A query excluding a word
    is not: "a or -b" is found in a term without b, not in the term and a summary
    saying b, and again in a body saying a. Each earlier part is left out then, or the
    entry would be listed twice.
    """
    return parts if _negates(q) else parts[-1:]


def _negates(q: str) -> bool:
    """Whether websearch syntax may read an exclusion (`-word`) in `q`."""
    return "-" in q


def _read(
    tiers: list[_Tier], columns: str, start: int, stop: int, sizes: dict[int, int]
) -> list[tuple[Any, ...]]:
    """Rows [start, stop) of the tiers laid end to end, reading no tier past the slice.

    `sizes` learns the size of each tier read to its end, so counting need not again.
    """
    if start == 0 and len(tiers) > 1 and tiers[1].past_first is not None:
        # The first page: the first two tiers in one statement (a word in every summary
        # fills it from the second), with the second's count.
        past_first, past_params = tiers[1].past_first
        first, second, counted = listing_reads.live_listing_two_tiers(
            columns,
            (tiers[0].where, tiers[0].params, tiers[0].order, tiers[0].order_params),
            (past_first, past_params, tiers[1].order, tiers[1].order_params),
            limit=stop,
            count_limit=COUNT_LIMIT + 1,
        )
        rows = (first + second)[:stop]
        if len(first) < stop:
            sizes[0] = len(first)
            # Counted to its end, or far enough to say "more than COUNT_LIMIT".
            sizes[1] = max(counted, len(second))
            if len(second) < stop:
                sizes[1] = len(second)
            if len(rows) < stop and len(second) < stop:
                return rows + _read_from(tiers, columns, 2, sizes[0] + sizes[1], start, stop, sizes)
        return rows
    return _read_from(tiers, columns, 0, 0, start, stop, sizes)


def _read_from(
    tiers: list[_Tier],
    columns: str,
    first: int,
    before: int,
    start: int,
    stop: int,
    sizes: dict[int, int],
) -> list[tuple[Any, ...]]:
    """`_read` from tier `first` on, `before` rows in the tiers before it."""
    rows: list[tuple[Any, ...]] = []  # read from the tiers from `first` on
    for i, tier in enumerate(tiers):
        if i < first:
            continue
        if before >= stop:  # `before` counts the rows read so far too
            break
        skip = max(0, start - before)
        need = stop - max(start, before)
        found = listing_reads.live_listing_rows(
            columns,
            tier.where,
            tier.params,
            tier.order,
            limit=need,
            offset=skip,
            order_params=tier.order_params,
        )
        rows += found
        if len(found) == need:
            break
        if found or not skip:
            sizes[i] = skip + len(found)
        else:
            # The slice starts past this tier's end: how long was it?
            sizes[i] = listing_reads.live_listing_count(tier.where, tier.params, limit=skip)
        before += sizes[i]
    return rows[: max(0, stop - start)]


def _count(tiers: list[_Tier], limit: int, sizes: dict[int, int]) -> int:
    """How many live entries the tiers hold, counting no further than `limit`.

    Tier by tier, best first, stopping at `limit`: a word in every summary is counted in
    its tier from a small vector, and the later tiers (whose vectors are larger and
    slower to read) are never read. A tier read to its end is not counted again.
    """
    total = 0
    for i, tier in enumerate(tiers):
        if total >= limit:
            break
        if i not in sizes:
            sizes[i] = listing_reads.live_listing_count(
                tier.where, tier.params, limit=limit - total
            )
        total += sizes[i]
    return min(total, limit)


def _closest(q: str, shows: Shows) -> list[Hit]:
    if connection.vendor == "postgresql":
        return _closest_postgres(q, shows)
    return _closest_sqlite(q, shows)


# --- PostgreSQL ---------------------------------------------------------------------------


def _closest_postgres(q: str, shows: Shows) -> list[Hit]:
    rows = listing_reads.live_listing_rows(
        _HIT_COLUMNS[shows],
        # `names %> q`: pg_trgm's word similarity, served by the trigram index.
        "l.names %%> %s",
        [q],
        f"word_similarity(%s, l.names) DESC, {_A_TO_Z}",
        limit=FUZZY_LIMIT,
        order_params=(q,),
    )
    return [_hit(row, shows, fuzzy=True) for row in rows]


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


def _trigrams(text: str) -> set[str]:
    folded = text.casefold()
    return {folded[i : i + 3] for i in range(len(folded) - 2) if folded[i : i + 3].strip()}


def _closest_sqlite(q: str, shows: Shows) -> list[Hit]:
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
    if not best:
        return []
    ids = sorted(best)
    found = listing_reads.live_listing_rows(
        f"l.version_id, {_HIT_COLUMNS[shows]}",
        f"l.version_id IN ({', '.join(['%s'] * len(ids))})",
        ids,
        _A_TO_Z,
        limit=len(ids),
    )
    ranked = sorted(found, key=lambda r: -best[r[0]])[:FUZZY_LIMIT]
    return [_hit(row[1:], shows, fuzzy=True) for row in ranked]


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
        [pk, *(fields[name] for name in ("term", "aliases", "summary", "body", "quotes"))],
    )
    for i, name in enumerate(names[:_NAMES]):
        cursor.execute(
            "INSERT INTO glossary_search_names (rowid, name) VALUES (%s, %s)",
            [pk * _NAMES + i, name],
        )


# --- Keeping the indexes --------------------------------------------------------------------

# Each part's words once, then the cumulative vectors from them: A term and aliases,
# B summary, C body and references, D quotes (written with the listing row).
_VECTORS = (
    "SELECT a, a || b, a || b || c, a || b || c || d FROM (SELECT "  # noqa: S608 - constants
    f"setweight(to_tsvector('{_CONFIG}', %s), 'A') || setweight(to_tsvector('{_CONFIG}', %s), 'A') "
    f"AS a, setweight(to_tsvector('{_CONFIG}', %s), 'B') AS b, "
    f"setweight(to_tsvector('{_CONFIG}', %s), 'C') AS c, "
    f"setweight(to_tsvector('{_CONFIG}', %s), 'D') AS d) AS parts"
)


def index_live(version: EntryVersion, doc: document.EntryDocument | None = None) -> None:
    """List and index `version` (whose document is `doc`), which has just gone live (in the
    publishing transaction)."""
    doc = doc or document.load(version.data)
    fields = doc.search_fields()
    parts = [fields[f] for f in ("term", "aliases", "summary", "body", "quotes")]
    if connection.vendor == "postgresql":
        listing_index.index_live(version, doc, words=(_VECTORS, parts))
    elif listing_index.index_live(version, doc) and connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            _sqlite_index(cursor, version.pk, fields, doc.search_names().split("\n"))


def unindex(version: EntryVersion) -> None:
    """Delist and forget `version`, no longer live (withdrawn, or replaced by a newer one)."""
    listing_index.unindex(version)
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            _sqlite_unindex(cursor, [version.pk])


def reindex_all() -> int:
    """Rebuild the listing and the indexes from the live versions; how many were indexed."""
    listing_index.clear()
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM glossary_search")
            cursor.execute("DELETE FROM glossary_search_names")
    count = 0
    for version in selectors.live_versions().only("pk", "data", "show").iterator(chunk_size=500):
        index_live(version)
        count += 1
    return count


# --- What matched, marked -----------------------------------------------------------------

# Characters either side of the first match that a result's snippet shows.
SNIPPET_CONTEXT = 80
# A word of the query as websearch syntax reads it: `or` joins, `-word` excludes.
_QUERY_WORD = re.compile(r"\w+")
# Endings the English stemmer drops, so "routing" marks "routes" as the search found it.
_ENDINGS = ("ing", "ed", "es", "s")


# A match in text escaped as HTML starts nowhere inside a character reference ("&amp;",
# "&#x27;"): every other place a word can start is where it starts in the text itself.
_NOT_IN_REFERENCE = "(?<!&)(?<!&#)"


def _marked(match: re.Match[str]) -> str:
    return f"<mark>{match.group()}</mark>"


@dataclass(frozen=True)
class _Marker:
    """What in a hit's text the query's words match: each word's stem, to the word's end;
    `in_html` is the same in the text escaped as HTML."""

    in_text: re.Pattern[str]
    in_html: re.Pattern[str]
    # The query's only stem, when it is ASCII: found in ASCII text by a plain search.
    stem: str | None = None


_WORD_RUN = re.compile(r"\w*")


def _first_match(text: str, marker: _Marker) -> tuple[int, int] | None:
    """Where the first match of the query's words in `text` starts and ends.

    One ASCII word in ASCII text (a search's common case): a plain search of the text
    lowercased for the stem, at a word's start, to the word's end; what `in_text` finds,
    in a fifth of its time (every hit on a page has its text searched). Otherwise
    `in_text`: case-insensitive matching pairs some letters lowercasing does not ("ſ"
    and "s").
    """
    stem = marker.stem
    if stem is None or not text.isascii():
        found = marker.in_text.search(text)
        return None if found is None else found.span()
    return next(_plain_matches(text.lower(), stem, in_html=False), None)


def _plain_matches(folded: str, stem: str, *, in_html: bool) -> Iterator[tuple[int, int]]:
    r"""Where the ASCII `stem` starts a word in `folded` (ASCII text lowercased), each to the
    word's end, as `\b(?:stem)\w*` finds them case-insensitively; `in_html`: never inside a
    character reference (`_NOT_IN_REFERENCE`: no "&" or "&#" before it)."""
    not_after = "_&" if in_html else "_"
    at = folded.find(stem)
    while at != -1:
        before = folded[at - 1] if at else " "
        if not (
            before.isalnum()
            or before in not_after
            or (in_html and before == "#" and at > 1 and folded[at - 2] == "&")
        ):
            end = _WORD_RUN.match(folded, at + len(stem)).end()  # type: ignore[union-attr]
            yield at, end
            at = end
        else:
            at += 1
        at = folded.find(stem, at)


def _marker(q: str) -> _Marker | None:
    stems = []
    for token in q.split():
        if token.lower() == "or" or token.startswith("-"):
            continue
        for word in _QUERY_WORD.findall(token.lower()):
            for ending in _ENDINGS:
                if word.endswith(ending) and len(word) - len(ending) >= 3:
                    word = word[: -len(ending)]
                    break
            stems.append(word)
    if not stems:
        return None
    longest_first = "|".join(re.escape(s) for s in sorted(set(stems), key=len, reverse=True))
    only = stems[0] if len(set(stems)) == 1 and stems[0].isascii() else None
    return _Marker(
        re.compile(rf"\b(?:{longest_first})\w*", re.IGNORECASE),
        # (The word boundary first: tested before the references, a fifth faster.)
        re.compile(rf"\b{_NOT_IN_REFERENCE}(?:{longest_first})\w*", re.IGNORECASE),
        only,
    )


def mark_html(html: str, marker: _Marker) -> str:
    """`html` (text escaped as HTML) with each match of the query's words in `<mark>`: one
    substitution, where marking each match of the text and escaping the parts between cost
    a search page a fifth of its time. One ASCII word in ASCII text: the same marks, found
    by a plain search of the text lowercased (`_plain_matches`), in a third of the time."""
    stem = marker.stem
    if stem is None or not html.isascii():
        return marker.in_html.sub(_marked, html)
    parts: list[str] = []
    done = 0
    for start, end in _plain_matches(html.lower(), stem, in_html=True):
        parts += (html[done:start], "<mark>", html[start:end], "</mark>")
        done = end
    if not parts:
        return html
    parts.append(html[done:])
    return "".join(parts)


def snippet(text: str, marker: _Marker) -> str:
    """The passage of `text` around its first match, escaped and marked; "" without one.

    Cut at words, on one line of the text (a line is a paragraph, a reference or a
    quote), with "…" where it was cut.
    """
    found = _first_match(text, marker)
    if found is None:
        return ""
    found_start, found_end = found
    line_start = text.rfind("\n", 0, found_start) + 1
    line_end = text.find("\n", found_end)
    line_end = len(text) if line_end == -1 else line_end
    start = max(line_start, found_start - SNIPPET_CONTEXT)
    end = min(line_end, found_end + SNIPPET_CONTEXT)
    if start > line_start:
        start = text.find(" ", start, found_start) + 1 or found_start
    if end < line_end:
        cut = text.rfind(" ", found_end, end)
        end = cut if cut != -1 else end
    passage = mark_html(_escape(text[start:end].strip()), marker)
    return f"{'…' if start > line_start else ''}{passage}{'…' if end < line_end else ''}"


_SUMMARY = '<span class="summary">'


def marked_rows(hits: list[Hit], q: str) -> list[str]:
    """The hits' rows for the search page, with where the query matched shown and marked.

    The summary's matches are marked in place; a match in the rest of the entry (aliases,
    body, references, quotes) adds the passage around it, from the text read with the
    hits. The closest spellings (`fuzzy`) matched nothing, so they keep their rows.
    """
    marker = _marker(q)
    rows = []
    for hit in hits:
        row = hit.row_html
        if marker is not None and hit.text is not None and not hit.fuzzy:
            row = _marked_row(row, hit.text, marker)
        rows.append(row)
    return rows


def _marked_row(row: str, text: str, marker: _Marker) -> str:
    if not row.endswith("</li>"):
        return row
    # The summary as the row shows it, escaped when the row was rendered.
    start = row.find(_SUMMARY)
    end = row.find("</span>", start) if start != -1 else -1
    if end != -1:
        start += len(_SUMMARY)
        row = f"{row[:start]}{mark_html(row[start:end], marker)}{row[end:]}"
    passage = snippet(text, marker)
    if passage:
        row = f'{row[: -len("</li>")]}<span class="snippet">{passage}</span></li>'
    return row
