"""Versions for people: readable side-by-side diffs of two documents.

A version's `data` is the complete document (glossary.document), so comparing
two versions is comparing two documents, line by line and word by word.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from glossary.document import Disclosure, EntryDocument
from glossary.timestamps import format_timestamp


@dataclass
class Row:
    left: SafeString
    right: SafeString
    kind: str  # equal, changed, removed, added


@dataclass
class Section:
    title: str
    rows: list[Row] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(row.kind != "equal" for row in self.rows)


def _lines(doc: EntryDocument) -> list[tuple[str, list[str]]]:
    """The document as the sections an editor reads, each a list of lines."""
    facts = doc.facts

    def episode(pk: int | None, at: int | None = None) -> str:
        if pk is None:
            return "no episode"
        label = f"episode {facts.episodes[pk].number}"
        return f"{label} at {format_timestamp(at)}" if at is not None else label

    def name(pk: int | None, table: dict[int, Any]) -> str:
        return table[pk].name if pk is not None else "—"

    def disclosure(d: Disclosure) -> str:
        text = d.text.strip() or (
            "(the sentence made from the episode's sponsor records)" if d.derived else ""
        )
        where = f" ({episode(d.episode, d.at)})" if d.episode is not None else ""
        return f"{d.kind}: {text}{where}"

    references = []
    for r in doc.references:
        references.append(f"{episode(r.episode, r.at)}, {name(r.speaker, facts.people)}: {r.text}")
        references += [f"    disclosure {disclosure(d)}" for d in r.disclosures]
    quotes = [
        f"“{q.text}” — {name(q.speaker, facts.people)}, {episode(q.episode, q.start)}"
        + (" (lightly edited)" if q.lightly_edited else "")
        for q in doc.quotes
    ]
    # What readers are told about each quote's check, and the transcript they can open.
    checks = []
    for q in doc.quotes:
        if q.check is None:
            continue
        at = f" at {format_timestamp(q.check.found_at)}" if q.check.found_at is not None else ""
        shown = "shown to readers" if q.check.verified else "not claimed to readers"
        checks.append(f"“{q.text[:60]}”: {q.check.verdict}{at}, {shown}")
        checks += (
            [f"    {line}" for line in q.check.passage.splitlines()] if q.check.verified else []
        )
    citations = []
    for c in doc.citations:
        source = facts.sources[c.source]
        citations.append(
            f"{source.title} <{source.url}>"
            + (f" — {c.note}" if c.note else "")
            + (f"; checked {c.checked_on.isoformat()}" if c.checked_on else "; not checked")
        )
        if c.excerpt and c.excerpt_on:
            # Readers may see it (docs/sources.md), so the reviewer sees it too.
            shown = " (shown to readers: the source is dead or changed)" if c.source_changed else ""
            excerpt = " ".join(c.excerpt.split())
            citations.append(f"    said on {c.excerpt_on.isoformat()}{shown}: “{excerpt}”")
    see_also = [
        f"{s.link_text or s.term} (entry #{s.entry})" + (f" — {s.note}" if s.note else "")
        for s in doc.see_also
    ]
    return [
        ("Term", [doc.term]),
        ("Address", [doc.slug]),
        ("Aliases", list(doc.aliases)),
        ("Summary", [doc.summary]),
        ("Body", [p for p in doc.body.split("\n") if p.strip()]),
        ("Tags", [", ".join(t.name for t in doc.tags)]),
        ("Episode references", references),
        ("Disclosures", [disclosure(d) for d in doc.disclosures]),
        ("Quotes", quotes),
        ("Quotes checked against the transcript", checks),
        ("Citations", citations),
        ("See also", see_also),
    ]


# Words with their trailing space, so a run of changed words is one highlight.
_WORDS = re.compile(r"\S+\s*|\s+")


def _word_diff(a: str, b: str) -> tuple[SafeString, SafeString]:
    a_words, b_words = _WORDS.findall(a), _WORDS.findall(b)
    left: list[str] = []
    right: list[str] = []
    matcher = difflib.SequenceMatcher(a=a_words, b=b_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old, new = escape("".join(a_words[i1:i2])), escape("".join(b_words[j1:j2]))
        if tag == "equal":
            left.append(old)
            right.append(new)
            continue
        if old:
            left.append(f"<del>{old}</del>")
        if new:
            right.append(f"<ins>{new}</ins>")
    return mark_safe("".join(left)), mark_safe("".join(right))  # noqa: S308 - parts escaped above


def _wrap(tag: str, text: str) -> SafeString:
    return format_html("<{}>{}</{}>", tag, text, tag) if text else SafeString("")


def side_by_side(a: list[str], b: list[str]) -> list[Row]:
    rows: list[Row] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [Row(escape(line), escape(line), "equal") for line in a[i1:i2]]
            continue
        old, new = a[i1:i2], b[j1:j2]
        for k in range(max(len(old), len(new))):
            if k < len(old) and k < len(new):
                left, right = _word_diff(old[k], new[k])
                rows.append(Row(left, right, "changed"))
            elif k < len(old):
                rows.append(Row(_wrap("del", old[k]), SafeString(""), "removed"))
            else:
                rows.append(Row(SafeString(""), _wrap("ins", new[k]), "added"))
    return rows


def compare(a: EntryDocument, b: EntryDocument) -> list[Section]:
    """Two documents as sections of side-by-side rows, `a` on the left."""
    sections = []
    for (title, a_lines), (_, b_lines) in zip(_lines(a), _lines(b), strict=True):
        sections.append(Section(title, side_by_side(a_lines, b_lines)))
    return sections
