"""Versions for people: readable side-by-side diffs, and putting an old version back.

A version's `data` is the complete snapshot (glossary.publishing.snapshot), so
comparing two versions is comparing two documents, and rolling back is writing
one document's parts back into the working-copy rows.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from glossary.models import (
    Citation,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Source,
)
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


def _episode_label(ep: dict[str, Any] | None) -> str:
    return f"episode {ep['number']}" if ep else "no episode"


def _at(seconds: int | None) -> str:
    return format_timestamp(seconds) if seconds is not None else "no time"


def _name(item: dict[str, Any] | None) -> str:
    return item["name"] if item else "—"


def _lines(data: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The snapshot as the sections an editor reads, each a list of lines."""
    references = []
    for r in data.get("references", []):
        references.append(
            f"{_episode_label(r['episode'])} at {_at(r['at'])}, {_name(r['speaker'])}: {r['text']}"
        )
        for d in r.get("disclosures", []):
            references.append(f"    disclosure ({d['kind']}): {d['text']}")
    disclosures = [
        f"{d['kind']}: {d['text']}"
        + (f" ({_episode_label(d['episode'])} at {_at(d['at'])})" if d.get("episode") else "")
        for d in data.get("disclosures", [])
    ]
    quotes = [
        f"“{q['text']}” — {_name(q['speaker'])}, {_episode_label(q['episode'])} at "
        f"{_at(q['start'])}{' (lightly edited)' if q['lightly_edited'] else ''}"
        for q in data.get("quotes", [])
    ]
    citations = [
        f"{c['source']['title']} <{c['source']['url']}>"
        + (f" — {c['note']}" if c["note"] else "")
        + (f"; checked {c['checked_on']}" if c["checked_on"] else "; not checked")
        for c in data.get("citations", [])
    ]
    see_also = [
        f"{s['link_text']} (/{s['slug']}/)" + (f" — {s['note']}" if s["note"] else "")
        for s in data.get("see_also", [])
    ]
    return [
        ("Term", [data.get("term", "")]),
        ("Address", [data.get("slug", "")]),
        ("Aliases", list(data.get("aliases", []))),
        ("Summary", [data.get("summary", "")]),
        ("Body", [p for p in data.get("body", "").split("\n") if p.strip()]),
        ("Tags", [", ".join(data.get("tags", []))]),
        ("Episode references", references),
        ("Disclosures", disclosures),
        ("Quotes", quotes),
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


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[Section]:
    """Two snapshots as sections of side-by-side rows, `a` on the left."""
    sections = []
    for (title, a_lines), (_, b_lines) in zip(_lines(a), _lines(b), strict=True):
        sections.append(Section(title, side_by_side(a_lines, b_lines)))
    return sections


def restore_working_copy(entry: Entry, data: dict[str, Any], *, user: Any) -> list[str]:
    """Rewrite the entry's working-copy rows to match a snapshot.

    Returns warnings for parts that could not be restored because what they
    point to no longer exists (a deleted episode, person or see-also entry).
    The caller saves a new version afterwards; old versions are never touched.
    """
    warnings: list[str] = []
    entry.term = data["term"]
    if Entry.objects.exclude(pk=entry.pk).filter(slug=data["slug"]).exists():
        warnings.append(
            f"The address /{data['slug']}/ now belongs to another entry; kept /{entry.slug}/."
        )
    else:
        entry.slug = data["slug"]
    entry.aliases = "\n".join(data.get("aliases", []))
    entry.summary = data.get("summary", "")
    entry.body = data.get("body", "")
    entry.updated_by = user if user is not None and user.is_authenticated else None
    entry.updated_at = timezone.now()
    entry.save(
        update_fields=["term", "slug", "aliases", "summary", "body", "updated_by", "updated_at"]
    )
    entry.tags.set(data.get("tags", []), clear=True)

    def ids(model: type[Any], items: list[dict[str, Any] | None]) -> set[int]:
        wanted = {item["id"] for item in items if item}
        return set(model.objects.filter(pk__in=wanted).values_list("pk", flat=True))

    refs = data.get("references", [])
    loose = data.get("disclosures", [])
    quotes = data.get("quotes", [])
    all_disclosures = [d for r in refs for d in r.get("disclosures", [])] + loose
    episodes = ids(
        Episode,
        [r["episode"] for r in refs]
        + [q["episode"] for q in quotes]
        + [d["episode"] for d in all_disclosures],
    )
    people = ids(
        Person,
        [r["speaker"] for r in refs]
        + [q["speaker"] for q in quotes]
        + [d["person"] for d in all_disclosures],
    )
    orgs = ids(Organisation, [d["organisation"] for d in all_disclosures])

    def ref_id(item: dict[str, Any] | None, known: set[int]) -> int | None:
        return item["id"] if item and item["id"] in known else None

    # Old citations first: their checked_by is not in the snapshot, so keep it
    # where the same source was confirmed on the same day.
    checked_by = {
        (c.source_id, c.checked_on.isoformat() if c.checked_on else None): c.checked_by_id
        for c in Citation.objects.filter(entry=entry)
    }
    Disclosure.objects.filter(entry=entry).delete()
    EpisodeReference.objects.filter(entry=entry).delete()
    Quote.objects.filter(entry=entry).delete()
    Citation.objects.filter(entry=entry).delete()
    SeeAlso.objects.filter(entry=entry).delete()

    def disclosure(d: dict[str, Any], order: int, reference: EpisodeReference | None) -> None:
        generated = d.get("generated", False)
        Disclosure.objects.create(
            entry=entry,
            order=order,
            kind=d["kind"],
            reference=reference,
            episode_id=ref_id(d["episode"], episodes),
            organisation_id=ref_id(d["organisation"], orgs),
            person_id=ref_id(d["person"], people),
            # A generated sponsorship sentence is stored as empty text (it is made
            # from the episode's data) and its timestamp came from the sponsor read.
            at=None if generated and d.get("at_label") else d.get("at"),
            text="" if generated else d["text"],
        )

    order = 0
    for i, r in enumerate(refs):
        if ref_id(r["episode"], episodes) is None:
            warnings.append(f"Episode reference {i + 1}: its episode no longer exists.")
            continue
        ref = EpisodeReference.objects.create(
            entry=entry,
            order=i,
            episode_id=r["episode"]["id"],
            at=r["at"],
            speaker_id=ref_id(r["speaker"], people),
            text=r["text"],
        )
        for d in r.get("disclosures", []):
            disclosure(d, order, ref)
            order += 1
    for d in loose:
        disclosure(d, order, None)
        order += 1
    for i, q in enumerate(quotes):
        if ref_id(q["episode"], episodes) is None or ref_id(q["speaker"], people) is None:
            warnings.append(f"Quote {i + 1}: its episode or speaker no longer exists.")
            continue
        Quote.objects.create(
            entry=entry,
            order=i,
            episode_id=q["episode"]["id"],
            speaker_id=q["speaker"]["id"],
            start=q["start"],
            end=q["end"],
            text=q["text"],
            verbatim=q.get("verbatim", ""),
            lightly_edited=q["lightly_edited"],
        )
    for i, c in enumerate(data.get("citations", [])):
        s = c["source"]
        source = (
            Source.objects.filter(pk=s["id"]).first()
            or Source.objects.get_or_create(
                url=s["url"], defaults={"title": s["title"], "publisher": s.get("publisher", "")}
            )[0]
        )
        Citation.objects.create(
            entry=entry,
            order=i,
            source=source,
            note=c["note"],
            checked_on=c["checked_on"],
            checked_by_id=checked_by.get((source.pk, c["checked_on"])),
        )
    targets = set(
        Entry.objects.filter(pk__in=[s["entry_id"] for s in data.get("see_also", [])])
        .exclude(pk=entry.pk)
        .values_list("pk", flat=True)
    )
    for i, s in enumerate(data.get("see_also", [])):
        if s["entry_id"] not in targets:
            warnings.append(f"See also “{s['term']}”: that entry no longer exists.")
            continue
        SeeAlso.objects.create(
            entry=entry,
            order=i,
            target_id=s["entry_id"],
            link_text="" if s["link_text"] == s["term"] else s["link_text"],
            note=s["note"],
        )
    return warnings
