"""The glossary in and out, losslessly: `export_glossary` and `import_glossary`.

The file format is documented in docs/export-format.md. In short: one JSON object
with a format name and version, the people (by username, with their roles, never a
password) and one list of rows per table, in the order below, each row with its id
and every field. A foreign key is the id of a row in the file, or a username for a
person. Importing into an empty database keeps every id, so the site serves the same
pages and API answers byte for byte, and the admin shows the same history.

Importing validates the whole file first and names the first bad place as a JSON
path (`$.tables.citations[3].source`); it then writes everything in one transaction,
so a failure leaves nothing behind. The file is as trusted as a database dump (it has
no signature): the import refuses a live version that was never published or is
another entry's, and renders every live page and API answer again from its version's
document rather than serving what the file says they were.
"""

from __future__ import annotations

import base64
import datetime
import json
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.utils import timezone
from taggit.managers import TaggableManager
from taggit.models import Tag, TaggedItem

from editorial.models import (
    Assignment,
    CitationConfirmation,
    Comment,
    InterestDisclosureWaiver,
    NotificationPreference,
    RefusedEdit,
    ScheduledAction,
    ShowMembership,
    SourceHealthChange,
    SourceSnapshot,
    SourceText,
    WorkflowEvent,
)
from editorial.permissions import sync_roles
from glossary import bulk
from glossary import cache as public_cache
from glossary.inbound import InboundError, load_json
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    EntryName,
    EntryRedirect,
    EntryVersion,
    Episode,
    EpisodeReference,
    LinkCheck,
    Organisation,
    Person,
    PublicRecord,
    PublicRecordLink,
    Quote,
    RecordEdit,
    SeeAlso,
    Show,
    Source,
    Sponsorship,
    Transcript,
    TranscriptSegment,
)
from glossary.publishing import bump_generation, rerender_all, save_versions
from glossary.signals import live_content_changed

FORMAT = "glossary-desk-export"
FORMAT_VERSION = 1

# Called with (table name, rows done, rows in the table).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Table:
    name: str
    model: type[models.Model]


# Written and read in this order: a row's references to other tables come earlier,
# except the few that point forward (an entry's live version, a disclosure's
# reference), which the database checks when the transaction commits.
TABLES: list[Table] = [
    Table("tags", Tag),
    Table("shows", Show),
    Table("people", Person),
    Table("organisations", Organisation),
    Table("episodes", Episode),
    Table("transcripts", Transcript),
    Table("transcript_segments", TranscriptSegment),
    Table("sponsorships", Sponsorship),
    Table("appearances", Appearance),
    Table("sources", Source),
    Table("link_checks", LinkCheck),
    Table("source_health_changes", SourceHealthChange),
    Table("source_texts", SourceText),
    Table("source_snapshots", SourceSnapshot),
    Table("entries", Entry),
    Table("entry_tags", TaggedItem),
    Table("entry_versions", EntryVersion),
    Table("entry_redirects", EntryRedirect),
    Table("episode_references", EpisodeReference),
    Table("quotes", Quote),
    Table("disclosures", Disclosure),
    Table("citations", Citation),
    Table("see_also", SeeAlso),
    Table("citation_confirmations", CitationConfirmation),
    Table("public_records", PublicRecord),
    Table("public_record_links", PublicRecordLink),
    Table("record_edits", RecordEdit),
    Table("workflow_events", WorkflowEvent),
    Table("comments", Comment),
    Table("assignments", Assignment),
    Table("refused_edits", RefusedEdit),
    Table("interest_waivers", InterestDisclosureWaiver),
    Table("scheduled_actions", ScheduledAction),
    Table("admin_log", LogEntry),
    Table("notification_preferences", NotificationPreference),
    Table("show_memberships", ShowMembership),
]
TABLE_BY_NAME = {t.name: t for t in TABLES}

# Models in glossary and editorial deliberately left out (tests/exchange checks that
# every model is either exported or listed here, so a new model is not forgotten).
NOT_EXPORTED = {
    "glossary.SiteGeneration": "the page cache's token; a new one is made on import",
    "editorial.SchedulerHeartbeat": "when this installation's scheduler last ran",
    "editorial.ArchiveRequest": "the Wayback Machine captures under way; the archive URL "
    "travels with its source",
    "editorial.ShareLink": "preview links are signed with the old site's SECRET_KEY; share again",
    "editorial.QuoteCheckRun": "a bulk check's progress; start a new run after importing",
    "editorial.Notification": "emails waiting or sent on the old site",
    "editorial.CalendarFeed": "calendar addresses are signed with the old site's SECRET_KEY; "
    "each person's My work page gives the new one",
    "editorial.EditingPresence": "who had an entry's page open on the old site a minute ago",
    "glossary.Listing": "the public lists' rows, rendered again from the live versions on import",
    "glossary.ListingName": "rebuilt with the listing on import",
    "glossary.ListingCount": "recounted with the listing on import",
    "glossary.EntryName": "each entry's names, written again from its term and aliases on import",
    "glossary.StoredPage": "episodes', people's and organisations' first pages, stored again",
}

USER_FIELDS = [
    "username",
    "first_name",
    "last_name",
    "email",
    "is_active",
    "is_staff",
    "is_superuser",
    "date_joined",
    "last_login",
]


class ExchangeError(Exception):
    """A file that cannot be imported, or a database that must not be imported into."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


# --- Fields --------------------------------------------------------------------------------


def _concrete_fields(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return [f for f in model._meta.concrete_fields if not f.primary_key]


def _m2m_fields(model: type[models.Model]) -> list[models.ManyToManyField[Any, Any]]:
    return [
        f
        for f in model._meta.many_to_many
        if isinstance(f, models.ManyToManyField) and not isinstance(f, TaggableManager)
    ]


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    """A concrete field by name (the exporter names only concrete fields)."""
    f = model._meta.get_field(name)
    if not isinstance(f, models.Field):
        raise LookupError(f"{model.__name__}.{name} is not a concrete field")
    return f


def _through_columns(f: models.ManyToManyField[Any, Any]) -> tuple[Any, str, str]:
    through: type[models.Model] = f.remote_field.through  # type: ignore[assignment]
    source = _field(through, f.m2m_field_name()).attname
    target = _field(through, f.m2m_reverse_field_name()).attname
    return through, source, target


def _shows_named(data: Any, known: set[Any]) -> list[int]:
    """The ids of the shows a version's document names, of those in `known`."""
    shows = data.get("shows", []) if isinstance(data, dict) else []
    return sorted(
        {s["id"] for s in shows if isinstance(s, dict) and s.get("id") in known},
    )


def _related_table(f: models.Field[Any, Any]) -> str:
    """The table a foreign key points into: a table name, "users" or "content_types"."""
    related = f.related_model
    if related is User:
        return "users"
    if related is ContentType:
        return "content_types"
    for table in TABLES:
        if table.model is related:
            return table.name
    raise LookupError(f"{f} points at {related}, which is not exported")


def _encode(value: Any) -> Any:
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        # BinaryField.to_python reads base64 back.
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


# --- Export --------------------------------------------------------------------------------


def _queryset(table: Table) -> models.QuerySet[Any]:
    qs = table.model._base_manager.order_by("pk")
    if table.model is TaggedItem:
        qs = qs.filter(content_type=ContentType.objects.get_for_model(Entry))
    if table.model is LogEntry:
        exported = [ContentType.objects.get_for_model(t.model).pk for t in TABLES]
        qs = qs.filter(content_type__in=exported)
    return qs


def export_glossary(progress: Progress | None = None) -> dict[str, Any]:
    """Everything editors made, as the JSON-ready dict of docs/export-format.md."""
    usernames = dict(User.objects.values_list("pk", "username"))
    labels = {ct.pk: f"{ct.app_label}.{ct.model}" for ct in ContentType.objects.all()}
    with transaction.atomic():  # one consistent snapshot on PostgreSQL
        users = []
        for user in User.objects.order_by("pk").prefetch_related(
            "groups", "user_permissions__content_type"
        ):
            person = {name: _encode(getattr(user, name)) for name in USER_FIELDS}
            person["roles"] = sorted(g.name for g in user.groups.all())
            person["permissions"] = sorted(
                f"{p.content_type.app_label}.{p.codename}" for p in user.user_permissions.all()
            )
            users.append(person)
        tables: dict[str, list[dict[str, Any]]] = {}
        for table in TABLES:
            qs = _queryset(table)
            total = qs.count()
            m2m: dict[str, dict[int, list[int]]] = {}
            for m in _m2m_fields(table.model):
                through, source, target = _through_columns(m)
                links: dict[int, list[int]] = {}
                for a, b in through.objects.order_by(target).values_list(source, target):
                    links.setdefault(a, []).append(b)
                m2m[m.name] = links
            fields = _concrete_fields(table.model)
            rows = []
            for done, obj in enumerate(qs.iterator(chunk_size=1000), start=1):
                row: dict[str, Any] = {"id": obj.pk}
                for f in fields:
                    if f.is_relation:
                        raw = getattr(obj, f.attname)
                        target_table = _related_table(f)
                        if raw is not None and target_table == "users":
                            raw = usernames[raw]
                        elif raw is not None and target_table == "content_types":
                            raw = labels[raw]
                        row[f.name] = raw
                    else:
                        row[f.name] = _encode(f.value_from_object(obj))
                for name, links in m2m.items():
                    row[name] = links.get(obj.pk, [])
                rows.append(row)
                if progress and (done % 200 == 0 or done == total):
                    progress(table.name, done, total)
            if progress and total == 0:
                progress(table.name, 0, 0)
            tables[table.name] = rows
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "users": users,
        "tables": tables,
    }


def write_export(path: Path, progress: Progress | None = None) -> dict[str, int]:
    """Write the export to `path` (written aside, then renamed); returns rows per table."""
    data = export_glossary(progress)
    tmp = path.with_name(path.name + ".partial")
    with tmp.open("w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False, indent=1, sort_keys=False)
        out.write("\n")
    tmp.replace(path)
    counts = {"users": len(data["users"])}
    counts.update({name: len(rows) for name, rows in data["tables"].items()})
    return counts


# --- Reading and checking a file -------------------------------------------------------------


def read_export(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ExchangeError(f"cannot read {path}: {exc}") from None
    try:
        data = load_json(text)
    except InboundError as exc:
        raise ExchangeError(f"{path} is not JSON we can read: {exc}") from None
    if not isinstance(data, dict):
        raise ExchangeError("expected an object", "$")
    nul = _nul_at(data)
    if nul:
        raise ExchangeError(
            "holds the character U+0000 (NUL), which PostgreSQL text cannot store", nul
        )
    if data.get("format") != FORMAT:
        raise ExchangeError(f"expected {FORMAT!r}, found {data.get('format')!r}", "$.format")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise ExchangeError(
            f"this version reads format_version {FORMAT_VERSION}, not {version!r}",
            "$.format_version",
        )
    if not isinstance(data.get("users"), list):
        raise ExchangeError("expected a list", "$.users")
    if not isinstance(data.get("tables"), dict):
        raise ExchangeError("expected an object", "$.tables")
    unknown = sorted(set(data["tables"]) - set(TABLE_BY_NAME))
    if unknown:
        raise ExchangeError(f"unknown table {unknown[0]!r}", f"$.tables.{unknown[0]}")
    return data


def _holds_nul(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _nul_at(data: dict[str, Any]) -> str:
    """The JSON path of the first string (key or value) holding NUL, or "" (a fast pass
    first: the paths are worked out only for a file that has one)."""
    if not _holds_nul(data):
        return ""
    stack: list[tuple[Any, str]] = [(data, "$")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str) and "\x00" in item:
            return where
        if isinstance(item, dict):
            for key, child in reversed(item.items()):
                if "\x00" in key:
                    return where
                stack.append((child, f"{where}.{key}"))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in reversed(list(enumerate(item))))
    return "$"


@dataclass
class Decoded:
    """One table's rows as unsaved model instances, and their many-to-many links."""

    table: Table
    objects: list[models.Model] = field(default_factory=list)
    links: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


def _naming(row: dict[str, Any]) -> str:
    """Which row a bad value is in, in words an editor knows: its address when it has one."""
    slug = row.get("slug")
    return f" (in the row with slug {slug!r})" if isinstance(slug, str) and slug else ""


def _messages(exc: ValidationError) -> str:
    return "; ".join(str(m) for m in exc.messages)


def _decode_value(f: models.Field[Any, Any], raw: Any, where: str) -> Any:
    if raw is None:
        if not f.null:
            raise ExchangeError("must not be null", where)
        return None
    try:
        value = f.to_python(raw)
        if f.choices and value not in {c[0] for c in f.flatchoices}:
            raise ExchangeError(f"{raw!r} is not one of the allowed values", where)
        f.run_validators(value)
    except ValidationError as exc:
        raise ExchangeError(_messages(exc), where) from None
    if isinstance(f, models.DateTimeField) and isinstance(value, datetime.datetime):
        if timezone.is_naive(value):
            raise ExchangeError("a time must carry its UTC offset", where)
    return value


@dataclass
class Checked:
    users: list[dict[str, Any]]
    tables: list[Decoded]

    def counts(self) -> dict[str, int]:
        out = {"users": len(self.users)}
        out.update({d.table.name: len(d.objects) for d in self.tables})
        return out


def _check_users(data: dict[str, Any]) -> list[dict[str, Any]]:
    users: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, row in enumerate(data["users"]):
        where = f"$.users[{i}]"
        if not isinstance(row, dict):
            raise ExchangeError("expected an object", where)
        username = row.get("username")
        if not isinstance(username, str) or not username:
            raise ExchangeError("a username is required", f"{where}.username")
        if username in seen:
            raise ExchangeError(f"{username!r} appears twice", f"{where}.username")
        if "password" in row:
            raise ExchangeError("passwords are never imported", f"{where}.password")
        seen.add(username)
        clean: dict[str, Any] = {"username": username}
        for name in USER_FIELDS[1:]:
            if name in row:
                clean[name] = _decode_value(_field(User, name), row[name], f"{where}.{name}")
        for key in ("roles", "permissions"):
            value = row.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ExchangeError("expected a list of names", f"{where}.{key}")
            clean[key] = value
        users.append(clean)
    return users


def check_export(data: dict[str, Any], progress: Progress | None = None) -> Checked:
    """Every row of the file as model instances, or ExchangeError naming the first bad place."""
    users = _check_users(data)
    usernames = {u["username"] for u in users}
    content_types = {f"{t.model._meta.app_label}.{t.model._meta.model_name}": t for t in TABLES}
    ids: dict[str, set[int]] = {}
    for table in TABLES:
        rows = data["tables"].get(table.name, [])
        where = f"$.tables.{table.name}"
        if not isinstance(rows, list):
            raise ExchangeError("expected a list", where)
        seen: set[int] = set()
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise ExchangeError("expected an object", f"{where}[{i}]")
            pk = row.get("id")
            if not isinstance(pk, int) or isinstance(pk, bool) or pk < 1:
                raise ExchangeError("expected a positive whole number", f"{where}[{i}].id")
            if pk in seen:
                raise ExchangeError(f"id {pk} appears twice in {table.name}", f"{where}[{i}].id")
            seen.add(pk)
        ids[table.name] = seen

    decoded: list[Decoded] = []
    for table in TABLES:
        rows = data["tables"].get(table.name, [])
        out = Decoded(table)
        fields = _concrete_fields(table.model)
        m2m = _m2m_fields(table.model)
        for m in m2m:
            out.links[m.name] = []
        for i, row in enumerate(rows):
            where = f"$.tables.{table.name}[{i}]"
            values: dict[str, Any] = {"pk": row["id"]}
            for f in fields:
                at = f"{where}.{f.name}"
                if f.name not in row:
                    if f.has_default() or f.null:
                        values[f.attname] = f.get_default()
                        continue
                    raise ExchangeError("missing", at)
                raw = row[f.name]
                if f.is_relation:
                    values[f.attname] = _decode_reference(f, raw, at, ids, usernames, content_types)
                else:
                    try:
                        values[f.attname] = _decode_value(f, raw, at)
                    except ExchangeError as exc:
                        raise ExchangeError(exc.message + _naming(row), at) from None
            if table.model is TaggedItem and values.get("content_type_id") != "glossary.entry":
                raise ExchangeError("tags are exported for entries only", f"{where}.content_type")
            if table.model is TaggedItem and values["object_id"] not in ids["entries"]:
                raise ExchangeError(
                    f"no entry with id {values['object_id']} in the file", f"{where}.object_id"
                )
            for m in m2m:
                at = f"{where}.{m.name}"
                targets = row.get(m.name, [])
                target_table = _related_table(m)
                if table.model is EntryVersion and m.name == "shows" and m.name not in row:
                    # A file written before versions named their shows: as the document
                    # names them (the shows the file holds).
                    targets = _shows_named(row.get("data"), ids[target_table])
                if not isinstance(targets, list):
                    raise ExchangeError("expected a list of ids", at)
                for j, target in enumerate(targets):
                    if target not in ids[target_table]:
                        raise ExchangeError(
                            f"no {target_table} row with id {target!r} in the file", f"{at}[{j}]"
                        )
                    out.links[m.name].append((row["id"], target))
            out.objects.append(table.model(**values))
            if progress and ((i + 1) % 500 == 0 or i + 1 == len(rows)):
                progress(f"checking {table.name}", i + 1, len(rows))
        decoded.append(out)
    _check_live_versions(decoded)
    _check_comments(decoded)
    return Checked(users, decoded)


def _check_live_versions(decoded: list[Decoded]) -> None:
    """Every live version is one of its own entry's versions, and one that was published.

    The file carries no signature (docs/export-format.md): these are the states the desk
    itself never makes, which would put an unapproved version, or another entry's, before
    readers.
    """
    tables = {d.table.name: d for d in decoded}
    entries = [e for e in tables["entries"].objects if isinstance(e, Entry)]
    versions = {v.pk: v for v in tables["entry_versions"].objects if isinstance(v, EntryVersion)}
    slugs = {e.pk: e.slug for e in entries}
    for i, entry in enumerate(entries):
        if entry.live_version_id is None:
            continue
        where = f"$.tables.entries[{i}].live_version"
        version = versions[entry.live_version_id]
        if version.entry_id != entry.pk:
            raise ExchangeError(
                f"entry {entry.slug!r}: its live version is version {version.number} of "
                f"another entry ({slugs.get(version.entry_id, version.entry_id)!r}); an "
                "entry's live version must be one of its own",
                where,
            )
        if version.published_at is None:
            raise ExchangeError(
                f"entry {entry.slug!r}: its live version is version {version.number}, which "
                "was never published (its published_at is null); readers see only published "
                "versions",
                where,
            )


def _check_comments(decoded: list[Decoded]) -> None:
    """Every comment is about its own entry's version, and a reply answers a first comment
    of the same entry: the threads editorial.comments makes, and no others."""
    tables = {d.table.name: d for d in decoded}
    versions = {v.pk: v for v in tables["entry_versions"].objects if isinstance(v, EntryVersion)}
    found = [c for c in tables["comments"].objects if isinstance(c, Comment)]
    by_id = {c.pk: c for c in found}
    for i, comment in enumerate(found):
        where = f"$.tables.comments[{i}]"
        version = versions.get(comment.version_id) if comment.version_id else None
        if version is not None and version.entry_id != comment.entry_id:
            raise ExchangeError(
                f"comment {comment.pk} is on entry {comment.entry_id} but names version "
                f"{version.number} of entry {version.entry_id}",
                f"{where}.version",
            )
        if comment.parent_id is None:
            continue
        parent = by_id[comment.parent_id]
        if parent.entry_id != comment.entry_id or parent.parent_id is not None:
            raise ExchangeError(
                f"comment {comment.pk} replies to comment {parent.pk}, which is not the first "
                "comment of a thread on the same entry",
                f"{where}.parent",
            )


def _decode_reference(
    f: models.Field[Any, Any],
    raw: Any,
    where: str,
    ids: dict[str, set[int]],
    usernames: set[str],
    content_types: dict[str, Table],
) -> Any:
    if raw is None:
        if not f.null:
            raise ExchangeError("must not be null", where)
        return None
    target = _related_table(f)
    if target == "users":
        if raw not in usernames:
            raise ExchangeError(f"no user {raw!r} in $.users", where)
        return raw  # resolved to an id once the users exist
    if target == "content_types":
        if raw not in content_types:
            raise ExchangeError(f"{raw!r} is not an exported table", where)
        return raw
    if not isinstance(raw, int) or isinstance(raw, bool) or raw not in ids[target]:
        raise ExchangeError(f"no {target} row with id {raw!r} in the file", where)
    return raw


# --- Import --------------------------------------------------------------------------------


def content_rows() -> dict[str, int]:
    """Rows already in the tables an import writes (people aside); empty means importable."""
    counts = {}
    for table in TABLES:
        if table.model is LogEntry:
            continue
        n = _queryset(table).count()
        if n:
            counts[table.name] = n
    return counts


@dataclass
class ImportReport:
    created: dict[str, int]
    users_created: list[str]
    users_kept: list[str]


def import_glossary(
    checked: Checked, *, dry_run: bool = False, progress: Progress | None = None
) -> ImportReport:
    """Write a checked file into an empty database, keeping every id; all or nothing."""
    existing = content_rows()
    if existing:
        listed = ", ".join(f"{n} {name}" for name, n in existing.items())
        raise ExchangeError(
            f"the database is not empty ({listed}); import into an empty database, or use "
            "--merge to add only what is missing"
        )
    have = set(
        User.objects.filter(username__in=[u["username"] for u in checked.users]).values_list(
            "username", flat=True
        )
    )
    report = ImportReport(
        created=checked.counts(),
        users_created=[u["username"] for u in checked.users if u["username"] not in have],
        users_kept=sorted(have),
    )
    report.created["users"] = len(report.users_created)
    if dry_run:
        return report
    # Committed, then every first page stored and every table vacuumed and analysed
    # (glossary.bulk): the site serves the import at full speed from its first request.
    with bulk.bulk_write(_written_tables()), transaction.atomic():
        user_ids = _create_users(checked.users, have)
        ct_ids = {}
        for t in TABLES:
            label = f"{t.model._meta.app_label}.{t.model._meta.model_name}"
            ct_ids[label] = ContentType.objects.get_for_model(t.model).pk
        for decoded in checked.tables:
            model = decoded.table.model
            fields = [model._meta.pk, *_concrete_fields(model)]
            for obj in decoded.objects:
                for f in fields:
                    if not f.is_relation:
                        continue
                    raw = getattr(obj, f.attname)
                    if raw is None:
                        continue
                    target = _related_table(f)
                    if target == "users":
                        setattr(obj, f.attname, user_ids[raw])
                    elif target == "content_types":
                        setattr(obj, f.attname, ct_ids[raw])
            _insert(model, fields, decoded.objects, decoded.table.name, progress)
            for m in _m2m_fields(model):
                through, source, target_col = _through_columns(m)
                through.objects.bulk_create(
                    [through(**{source: a, target_col: b}) for a, b in decoded.links[m.name]],
                    batch_size=500,
                )
        _reset_sequences([t.model for t in TABLES])
        # Rows were inserted as they are, without Entry.save, which writes the names.
        EntryName.write(list(Entry.objects.only("pk", "term", "aliases")), fresh=True)
        sync_roles()
        # The file's rendered pages, API answers, public records and search text are
        # not trusted (it carries no signature): each is derived again from the live
        # versions' documents, as a deploy does. This also starts a new cache generation.
        # A record whose version went with its entry (a correction that stood,
        # glossary.records) has no document to be derived from: it is left out, and
        # made again from the live versions.
        PublicRecord.objects.filter(version__isnull=True).delete()
        rerender_all()
    return report


def _written_tables() -> list[str]:
    """The tables an import or a merge may fill: every exported one and those derived from
    them (the listing, entry names, stored pages), the people and their roles."""
    return bulk.tables_of("glossary", "editorial", "taggit", "auth", *[t.model for t in TABLES])


def _readers_see_a_change() -> None:
    """A new cache generation, so no page cached before the import is served after it."""
    bump_generation()
    public_cache.invalidate()
    transaction.on_commit(lambda: live_content_changed.send(sender=Entry, entry_id=None))


def _insert(
    model: type[models.Model],
    fields: list[models.Field[Any, Any]],
    objects: list[models.Model],
    name: str,
    progress: Progress | None,
) -> None:
    """Insert rows as they are: ids kept, no auto_now, no signals (as loaddata does)."""
    manager = model._base_manager
    batch = max(1, connection.ops.bulk_batch_size(fields, objects) or len(objects) or 1)
    done = 0
    for start in range(0, len(objects), batch):
        chunk = objects[start : start + batch]
        manager._insert(chunk, fields=fields, raw=True)  # type: ignore[attr-defined]
        done += len(chunk)
        if progress:
            progress(name, done, len(objects))
    if progress and not objects:
        progress(name, 0, 0)


def _reset_sequences(models_: Iterable[type[models.Model]]) -> None:
    statements = connection.ops.sequence_reset_sql(no_style(), list(models_))
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


def _create_users(users: list[dict[str, Any]], have: set[str]) -> dict[str, int]:
    """The file's people, created without a usable password; existing usernames are kept."""
    ids = dict(User.objects.filter(username__in=have).values_list("username", "pk"))
    perms = {
        f"{app}.{codename}": pk
        for pk, app, codename in Permission.objects.values_list(
            "pk", "content_type__app_label", "codename"
        )
    }
    for row in users:
        if row["username"] in have:
            continue
        fields = {k: v for k, v in row.items() if k in USER_FIELDS}
        user = User(**fields)
        user.set_unusable_password()
        user.save()
        ids[user.username] = user.pk
        user.groups.set([Group.objects.get_or_create(name=name)[0] for name in row["roles"]])
        user.user_permissions.set([perms[p] for p in row["permissions"] if p in perms])
    return ids


# --- Merge ---------------------------------------------------------------------------------

# How a row is recognised in a database that already has content. A row whose key
# is already there is kept as it is; the rest are added with new ids.
MERGE_KEYS: dict[str, tuple[str, ...]] = {
    "tags": ("slug",),
    "shows": ("slug",),
    "people": ("slug",),
    "organisations": ("slug",),
    "episodes": ("show", "season", "number"),
    "transcripts": ("episode",),
    "sponsorships": ("episode", "organisation"),
    "appearances": ("episode", "person"),
    "sources": ("url",),
    "source_texts": ("content_hash",),
    "entries": ("slug",),
}
# Rows that come along with the row they belong to, only when that row is added.
MERGE_OWNED: dict[str, str] = {
    "link_checks": "source",
    "source_health_changes": "source",
    "transcript_segments": "transcript",
    "source_snapshots": "source",
    "citation_confirmations": "entry",
    "entry_tags": "object_id",
    "episode_references": "entry",
    "quotes": "entry",
    "disclosures": "entry",
    "citations": "entry",
    "see_also": "entry",
}
# Never merged: the published record and history of another site. A merged entry
# arrives as a draft here, to be reviewed and published by this desk.
MERGE_LEFT_OUT = {
    "entry_versions": "published versions embed the other site's ids; merged entries are drafts",
    "entry_redirects": "old addresses of the other site's published pages",
    "public_records": "readers see only what this desk publishes",
    "public_record_links": "they index the public records, which are not merged",
    "record_edits": "edits of the other site's records, approved or not there",
    "workflow_events": "the other site's history",
    "comments": "the other desk's threads, about versions that are not merged",
    "assignments": "the other desk's plans for its people; assign merged drafts here",
    "refused_edits": "the other desk's refused saves, against versions that are not merged",
    "interest_waivers": "decisions taken on the other site's versions",
    "scheduled_actions": "schedules for versions that are not merged",
    "admin_log": "the other site's admin history",
    "notification_preferences": "people here keep their own email choices",
    "show_memberships": "people here keep the show teams this desk gave them",
}


@dataclass
class MergePlan:
    created: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    left_out: dict[str, int] = field(default_factory=dict)
    new_entries: list[str] = field(default_factory=list)
    kept_entries: list[str] = field(default_factory=list)
    users_created: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = []
        if self.users_created:
            out.append(f"people to add (no password): {', '.join(self.users_created)}")
        for name, n in self.created.items():
            kept = self.kept.get(name, 0)
            out.append(f"{name}: add {n}" + (f", keep {kept} already here" if kept else ""))
        for name, n in self.kept.items():
            if name not in self.created:
                out.append(f"{name}: keep {n} already here")
        if self.new_entries:
            out.append(f"entries added as drafts: {', '.join(self.new_entries)}")
        if self.kept_entries:
            out.append(f"entries already here, left unchanged: {', '.join(self.kept_entries)}")
        for name, n in self.left_out.items():
            out.append(
                f"{name}: {n} not merged ({MERGE_LEFT_OUT.get(name, 'belongs to a row kept')})"
            )
        return out


def _key(obj: models.Model, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(obj, _field(type(obj), n).attname) for n in names)


def merge_glossary(
    checked: Checked, *, dry_run: bool = False, progress: Progress | None = None
) -> MergePlan:
    """Add what the database lacks, keep what it has (docs/export-format.md, "Merging")."""
    plan = MergePlan()
    have_users = _usernames_here(checked.users)
    plan.users_created = [u["username"] for u in checked.users if u["username"] not in have_users]
    entry_ct = ContentType.objects.get_for_model(Entry).pk
    # (A dry run is rolled back: nothing to store or vacuum.)
    settle = nullcontext() if dry_run else bulk.bulk_write(_written_tables())
    with settle, transaction.atomic():
        user_ids = _create_users(checked.users, have_users)
        idmap: dict[str, dict[int, int]] = {}
        for decoded in checked.tables:
            _merge_table(decoded, plan, idmap, user_ids, entry_ct, progress)
        _reset_sequences([t.model for t in TABLES])
        _credit_merged_text(list(idmap.get("entries:added", {}).values()))
        if dry_run:
            transaction.set_rollback(True)
        else:
            _readers_see_a_change()
    return plan


def _usernames_here(users: list[dict[str, Any]]) -> set[str]:
    """The usernames of the file's people that this database already has."""
    return set(
        User.objects.filter(username__in=[u["username"] for u in users]).values_list(
            "username", flat=True
        )
    )


def _merge_table(
    decoded: Decoded,
    plan: MergePlan,
    idmap: dict[str, dict[int, int]],
    user_ids: dict[str, int],
    entry_ct: int,
    progress: Progress | None,
) -> None:
    """Merge one table's rows into the database and record it in `plan`.

    A left-out table is only counted. A row owned by a row not added is left out, a row
    whose merge key is already here is kept (its file id mapped to the one here), and
    the rest are added with new ids. `idmap[name]` maps the table's file ids to ids
    here; `idmap[f"{name}:added"]` holds only the rows added.
    """
    name = decoded.table.name
    model = decoded.table.model
    mapping: dict[int, int] = {}
    idmap[name] = mapping
    if name in MERGE_LEFT_OUT:
        if decoded.objects:
            plan.left_out[name] = len(decoded.objects)
        return
    fields = _concrete_fields(model)
    to_add: list[tuple[int, models.Model]] = []
    for obj in decoded.objects:
        old_pk = int(obj.pk)
        if name in MERGE_OWNED and not _owner_added(model, obj, MERGE_OWNED[name], idmap):
            plan.left_out[name] = plan.left_out.get(name, 0) + 1
            continue
        _remap(obj, fields, idmap, user_ids, entry_ct)
        if name in MERGE_KEYS:
            existing = _existing_pk(model, obj, MERGE_KEYS[name])
            if existing is not None:
                mapping[old_pk] = existing
                plan.kept[name] = plan.kept.get(name, 0) + 1
                if name == "entries":
                    plan.kept_entries.append(str(getattr(obj, "slug", "")))
                continue
        if isinstance(obj, Entry):
            _as_new_draft(obj)
            plan.new_entries.append(obj.slug)
        obj.pk = None
        to_add.append((old_pk, obj))
    if to_add:
        _add_rows(model, name, to_add, idmap)
        plan.created[name] = len(to_add)
    if progress:
        progress(name, len(decoded.objects), len(decoded.objects))


def _owner_added(
    model: type[models.Model],
    obj: models.Model,
    owner_field: str,
    idmap: dict[str, dict[int, int]],
) -> bool:
    """Whether the row `obj` belongs to (through `owner_field`) was added by this merge."""
    owner_table = (
        "entries" if owner_field == "object_id" else _related_table(_field(model, owner_field))
    )
    attname = owner_field if owner_field == "object_id" else _field(model, owner_field).attname
    return getattr(obj, attname) in idmap.get(f"{owner_table}:added", {})


def _existing_pk(
    model: type[models.Model], obj: models.Model, names: tuple[str, ...]
) -> int | None:
    """The id of the row here with the same merge key (`names`) as `obj`, or None."""
    lookup = {_field(model, n).attname: v for n, v in zip(names, _key(obj, names), strict=True)}
    return model._base_manager.filter(**lookup).values_list("pk", flat=True).first()


def _as_new_draft(entry: Entry) -> None:
    """Make a merged entry a draft never published here, with changes to review."""
    entry.status = Entry.Status.DRAFT
    entry.live_version_id = None
    entry.has_unpublished_changes = True
    entry.first_published_at = entry.last_published_at = None
    entry.significant_change_at = None


def _add_rows(
    model: type[models.Model],
    name: str,
    to_add: list[tuple[int, models.Model]],
    idmap: dict[str, dict[int, int]],
) -> None:
    """Create the rows of `to_add` (file id, unsaved row) and map their file ids to the new
    ids in `idmap[name]` and `idmap[f"{name}:added"]`."""
    made = model._base_manager.bulk_create([o for _, o in to_add], batch_size=500)
    if model is Entry:  # bulk_create skips Entry.save, which writes the names
        EntryName.write(made, fresh=True)  # type: ignore[arg-type]
    mapping = idmap[name]
    added = idmap.setdefault(f"{name}:added", {})
    for (old_pk, _), new in zip(to_add, made, strict=True):
        mapping[old_pk] = int(new.pk)
        added[old_pk] = int(new.pk)


def _credit_merged_text(entry_ids: list[int]) -> None:
    """Save each merged entry's text as a version credited to whoever the file says wrote
    it (its writer, then its last editor), so neither can publish it here alone: a draft
    with no version would be published as a version credited to its publisher, and the
    file's author could publish their own text. An entry the file credits to nobody gets
    one version credited to nobody (a script's)."""
    entries = Entry.objects.filter(pk__in=entry_ids).select_related("created_by", "updated_by")
    by_author: dict[int | None, list[Entry]] = {}
    for entry in entries.order_by("pk"):
        authors = [u for u in (entry.created_by, entry.updated_by) if u is not None]
        for author in dict.fromkeys(authors) or [None]:
            by_author.setdefault(author.pk if author else None, []).append(entry)
    users = User.objects.in_bulk([pk for pk in by_author if pk is not None])
    for author_id, written in by_author.items():
        save_versions(
            [(entry, None) for entry in written],
            user=users.get(author_id) if author_id is not None else None,
            comment="Merged from another site's export: its text, as written there.",
        )


def _remap(
    obj: models.Model,
    fields: list[models.Field[Any, Any]],
    idmap: dict[str, dict[int, int]],
    user_ids: dict[str, int],
    entry_ct: int,
) -> None:
    for f in fields:
        raw = getattr(obj, f.attname)
        if raw is None:
            continue
        if f.is_relation:
            target = _related_table(f)
            if target == "users":
                setattr(obj, f.attname, user_ids[raw])
            elif target == "content_types":
                setattr(obj, f.attname, entry_ct)
            elif target in idmap:
                setattr(obj, f.attname, idmap[target].get(raw))
            else:
                setattr(obj, f.attname, None)  # points forward (a live version): dropped
        elif f.attname == "object_id" and isinstance(obj, TaggedItem):
            obj.object_id = idmap["entries"][raw]
