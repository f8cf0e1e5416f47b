"""A team's existing glossary in, as drafts: CSV files and Markdown files with front matter.

`manage.py import_entries` (docs/importing-entries.md) reads every file first and
reports every row or file it cannot use, with its line or name and the reason. It
creates nothing unless everything can be read; then it creates every draft in one
transaction, each with a first version credited to the person named by `--as`.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify
from taggit.models import Tag, TaggedItem

from editorial.permissions import Action, can, show_roles
from glossary import bulk
from glossary.fields import refuse_line_breaks
from glossary.inbound import control_character
from glossary.models import Citation, Entry, EntryName, EntryVersion, Show, Source
from glossary.publishing import save_version

CSV_COLUMNS = ("term", "slug", "show", "aliases", "summary", "body", "tags", "sources")
FRONT_MATTER_KEYS = {"term", "slug", "show", "aliases", "summary", "tags", "sources"}
MARKDOWN_SUFFIXES = (".md", ".markdown")


@dataclass
class SourceItem:
    url: str
    title: str = ""
    note: str = ""


@dataclass
class Draft:
    """One entry to create, and where it came from (for reports)."""

    origin: str
    term: str
    slug: str
    aliases: list[str] = field(default_factory=list)
    summary: str = ""
    body: str = ""
    tags: list[str] = field(default_factory=list)
    sources: list[SourceItem] = field(default_factory=list)
    # The slug of the show the entry belongs to, as written; `show_id` once validated.
    show: str = ""
    show_id: int | None = None


@dataclass
class Problem:
    origin: str
    reason: str

    def __str__(self) -> str:
        return f"{self.origin}: {self.reason}"


@dataclass
class Intake:
    drafts: list[Draft] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    new_sources: set[str] = field(default_factory=set)


def _split(cell: str) -> list[str]:
    """A list cell: items separated by semicolons or line breaks."""
    return [part.strip() for line in cell.splitlines() for part in line.split(";") if part.strip()]


def _text_list(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return _split(value)
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return [str(v).strip() for v in value if str(v).strip()]
    raise ValueError(f"{what} must be text or a list of text")


def _source_items(value: Any) -> list[SourceItem]:
    if value is None:
        return []
    if isinstance(value, str):
        value = _split(value)
    if not isinstance(value, list):
        raise ValueError("sources must be a list")
    items = []
    for i, item in enumerate(value, start=1):
        if isinstance(item, str):
            url, _, title = item.strip().partition(" ")
            items.append(SourceItem(url=url, title=title.strip()))
        elif isinstance(item, dict) and isinstance(item.get("url"), str):
            unknown = set(item) - {"url", "title", "note"}
            if unknown:
                raise ValueError(f"source {i} has unknown key {sorted(unknown)[0]!r}")
            items.append(
                SourceItem(
                    url=item["url"].strip(),
                    title=str(item.get("title") or "").strip(),
                    note=str(item.get("note") or "").strip(),
                )
            )
        else:
            raise ValueError(f"source {i} must be a URL or a mapping with a url")
    return items


def read_csv(path: Path, intake: Intake) -> None:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        intake.problems.append(Problem(path.name, f"not UTF-8 text (byte {exc.start})"))
        return
    if _has_control_character(path.name, text, intake):
        return
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip().lower() for h in reader.fieldnames or []]
    if "term" not in header:
        intake.problems.append(Problem(path.name, "the first row must name the columns, with term"))
        return
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown:
        intake.problems.append(
            Problem(
                path.name,
                f"unknown column {unknown[0]!r} (columns: {', '.join(CSV_COLUMNS)})",
            )
        )
        return
    reader.fieldnames = header
    number = 1  # the header is row 1, as a spreadsheet numbers it
    while True:
        first_line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            intake.problems.append(Problem(f"{path.name} line {first_line}", str(exc)))
            break
        number += 1
        origin = f"{path.name} row {number}"
        if first_line != number:
            origin += f" (line {first_line})"
        if None in row:
            intake.problems.append(Problem(origin, "more cells than columns"))
            continue
        cells = {k: (v or "").strip() for k, v in row.items()}
        if not any(cells.values()):
            continue  # a blank line
        try:
            intake.drafts.append(
                Draft(
                    origin=origin,
                    term=cells.get("term", ""),
                    slug=cells.get("slug", ""),
                    show=cells.get("show", ""),
                    aliases=_split(cells.get("aliases", "")),
                    summary=cells.get("summary", ""),
                    body=(row.get("body") or "").strip(),
                    tags=_split(cells.get("tags", "")),
                    sources=_source_items(cells.get("sources", "")),
                )
            )
        except ValueError as exc:
            intake.problems.append(Problem(origin, str(exc)))


def read_markdown(path: Path, intake: Intake) -> None:
    origin = path.name
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        intake.problems.append(Problem(origin, f"not UTF-8 text (byte {exc.start})"))
        return
    if _has_control_character(origin, text, intake):
        return
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        intake.problems.append(Problem(origin, "no front matter (the file must start with ---)"))
        return
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() in ("---", "..."))
    except StopIteration:
        intake.problems.append(Problem(origin, "the front matter is not closed with ---"))
        return
    try:
        meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        intake.problems.append(Problem(origin, f"the front matter is not YAML{where}"))
        return
    except RecursionError:
        intake.problems.append(Problem(origin, "the front matter is nested too deeply"))
        return
    except (ValueError, TypeError, AttributeError) as exc:
        # PyYAML's constructors fail outside YAMLError on some values: a date such as
        # 2025-02-30, an integer of 5,000 digits, a tagged value it cannot read.
        intake.problems.append(
            Problem(origin, f"the front matter has a value YAML cannot read: {exc}")
        )
        return
    if not isinstance(meta, dict):
        intake.problems.append(Problem(origin, "the front matter must be key: value lines"))
        return
    unknown = sorted(set(map(str, meta)) - FRONT_MATTER_KEYS)
    if unknown:
        intake.problems.append(
            Problem(
                origin,
                f"unknown front matter key {unknown[0]!r} "
                f"(keys: {', '.join(sorted(FRONT_MATTER_KEYS))})",
            )
        )
        return
    try:
        intake.drafts.append(
            Draft(
                origin=origin,
                term=str(meta.get("term") or "").strip(),
                slug=str(meta.get("slug") or "").strip(),
                show=str(meta.get("show") or "").strip(),
                aliases=_text_list(meta.get("aliases"), "aliases"),
                summary=str(meta.get("summary") or "").strip(),
                body="\n".join(lines[end + 1 :]).strip(),
                tags=_text_list(meta.get("tags"), "tags"),
                sources=_source_items(meta.get("sources")),
            )
        )
    except ValueError as exc:
        intake.problems.append(Problem(origin, str(exc)))


def _has_control_character(origin: str, text: str, intake: Intake) -> bool:
    """Report a control character (NUL cannot be stored in PostgreSQL text) by its line."""
    found = control_character(text)
    if found is None:
        return False
    line, char = found
    intake.problems.append(
        Problem(f"{origin} line {line}", f"the control character {char} cannot be stored")
    )
    return True


def _draft_control_character(draft: Draft) -> str:
    """A problem for a control character that reached a draft's text through an escape
    (YAML's "\\0"), or ""."""
    texts = [
        ("term", draft.term),
        ("slug", draft.slug),
        ("summary", draft.summary),
        ("body", draft.body),
        *(("aliases", a) for a in draft.aliases),
        *(("tags", t) for t in draft.tags),
        *(
            ("sources", part)
            for item in draft.sources
            for part in (item.url, item.title, item.note)
        ),
    ]
    for name, text in texts:
        found = control_character(text)
        if found is not None:
            return f"{name} holds the control character {found[1]}, which cannot be stored"
    return ""


def collect(paths: list[Path], user: User | None = None) -> Intake:
    """Read every CSV and Markdown file named (directories: the files in them, sorted);
    `user`, who the drafts will be credited to, must be allowed to write for their shows."""
    intake = Intake()
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p
                for p in path.iterdir()
                if p.is_file() and p.suffix.lower() in (".csv", *MARKDOWN_SUFFIXES)
            )
            if not found:
                intake.problems.append(Problem(str(path), "no .csv or .md files in it"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            intake.problems.append(Problem(str(path), "no such file or directory"))
    for path in files:
        suffix = path.suffix.lower()
        if suffix == ".csv":
            read_csv(path, intake)
        elif suffix in MARKDOWN_SUFFIXES:
            read_markdown(path, intake)
        else:
            intake.problems.append(Problem(path.name, "not a .csv or .md file"))
    validate(intake, user)
    return intake


def _show_problem(draft: Draft, shows: dict[str, int], user: User | None) -> str:
    """Why `draft` cannot belong to the show it names (or to none); sets its `show_id`."""
    if draft.show:
        if draft.show.lower() not in shows:
            named = ", ".join(sorted(shows)) or "none yet"
            return f"show {draft.show!r} is not a show's slug here (shows: {named})"
        draft.show_id = shows[draft.show.lower()]
    elif len(shows) == 1:
        # A single-show glossary: its entries are that show's, as the admin's form says.
        draft.show_id = next(iter(shows.values()))
    if user is None:
        return ""
    if draft.show_id is None and show_roles(user) is not None:
        return f"{user.username} works on some shows only: name the entry's show (column show)"
    if draft.show_id is not None and not can(user, Action.ADD, Entry(show_id=draft.show_id)):
        slug = next(slug for slug, pk in shows.items() if pk == draft.show_id)
        return f"{user.username} may not write entries for the show {slug!r} (not on its team)"
    return ""


def validate(intake: Intake, user: User | None = None) -> None:
    """Check each draft as the admin would; a draft with a problem is dropped from the plan."""
    shows = {slug.lower(): pk for slug, pk in Show.objects.values_list("slug", "pk")}
    slugs_here: dict[str, str] = {}
    existing_sources = set(Source.objects.values_list("url", flat=True))
    url_field = Source._meta.get_field("url")
    title_field = Source._meta.get_field("title")
    good: list[Draft] = []
    for draft in intake.drafts:
        problems: list[str] = []
        control = _draft_control_character(draft)
        if control:
            intake.problems.append(Problem(draft.origin, control))
            continue
        if not draft.term:
            problems.append("term is empty")
        draft.slug = (draft.slug or slugify(draft.term)[:200]).lower()
        if draft.term and not draft.slug:
            problems.append("term has no letters or digits for an address; give a slug")
        show_problem = _show_problem(draft, shows, user)
        if show_problem:
            problems.append(show_problem)
        if len(draft.summary) > settings.SUMMARY_MAX_LENGTH:
            problems.append(
                f"summary is {len(draft.summary)} characters; at most {settings.SUMMARY_MAX_LENGTH}"
            )
        try:
            refuse_line_breaks(draft.summary)
        except ValidationError as exc:
            problems.extend(f"summary: {m}" for m in exc.messages)
        if draft.slug in slugs_here:
            problems.append(f"the address {draft.slug!r} is also used by {slugs_here[draft.slug]}")
        elif draft.slug and Entry.objects.filter(slug=draft.slug).exists():
            problems.append(
                f"an entry at /glossary/{draft.slug}/ already exists; give this one another slug"
            )
        entry = Entry(
            term=draft.term,
            slug=draft.slug,
            aliases="\n".join(draft.aliases),
            summary=draft.summary,
            body=draft.body,
        )
        try:
            entry.full_clean(exclude=["live_version", "summary"], validate_unique=False)
        except ValidationError as exc:
            for name, messages in exc.message_dict.items():
                if name in ("term", "slug") and not draft.term:
                    continue
                problems.extend(f"{name}: {m}" for m in messages)
        seen_urls: set[str] = set()
        for item in draft.sources:
            try:
                url_field.clean(item.url, None)
            except ValidationError as exc:
                problems.append(f"source {item.url!r}: {'; '.join(exc.messages)}")
            try:
                title_field.run_validators(item.title)
            except ValidationError as exc:
                problems.append(f"title of source {item.url!r}: {'; '.join(exc.messages)}")
            if item.url in seen_urls:
                problems.append(f"source {item.url!r} is listed twice")
            seen_urls.add(item.url)
        if problems:
            intake.problems.append(Problem(draft.origin, "; ".join(problems)))
            continue
        slugs_here[draft.slug] = draft.origin
        intake.new_sources.update(u.url for u in draft.sources if u.url not in existing_sources)
        good.append(draft)
    intake.drafts = good


def create_drafts(intake: Intake, user: User) -> list[Entry]:
    """Create every draft with its sources, topics and a first version, or none; then the
    tables they went into are vacuumed and analysed (glossary.bulk), so the admin's lists
    and checks plan for the rows now there."""
    tables = bulk.tables_of(Entry, EntryName, EntryVersion, Citation, Source, Tag, TaggedItem)
    with bulk.bulk_write(tables):
        return _create_drafts(intake, user)


@transaction.atomic
def _create_drafts(intake: Intake, user: User) -> list[Entry]:
    made = []
    for draft in intake.drafts:
        entry = Entry.objects.create(
            term=draft.term,
            slug=draft.slug,
            show_id=draft.show_id,
            aliases="\n".join(draft.aliases),
            summary=draft.summary,
            body=draft.body,
            status=Entry.Status.DRAFT,
            created_by=user,
            updated_by=user,
        )
        if draft.tags:
            entry.tags.add(*draft.tags)
        for order, item in enumerate(draft.sources):
            source, _ = Source.objects.get_or_create(
                url=item.url, defaults={"title": item.title or item.url}
            )
            # Not checked by anyone here yet: no checked_on, so the publish checks ask for it.
            Citation.objects.create(entry=entry, source=source, note=item.note, order=order)
        save_version(entry, user=user, comment=f"Imported from {draft.origin}.")
        made.append(entry)
    return made
