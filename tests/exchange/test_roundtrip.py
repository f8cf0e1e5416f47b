"""export_glossary then import_glossary into an empty database serves the same site.

Every public page reachable from the home page, every API answer (lists, details,
searches) and every entry's admin history are captured, the database is emptied,
the export is imported, and everything is captured again and compared byte for byte.
Only two things may differ, and are blanked before comparing: the CSRF token in
admin forms (a new session) and the ETag header (a new cache generation, so no page
cached before the import can be served after it).
"""

from __future__ import annotations

import datetime
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import time_machine
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.test import Client

from editorial import assignments, comments, scheduling, workflow
from editorial.models import Comment, InterestDisclosureWaiver, ScheduledAction, WorkflowEvent
from editorial.permissions import Role
from glossary.models import Entry, EntryVersion, LinkCheck, Organisation, Source
from glossary.publishing import save_version
from tests.personas import member

pytestmark = pytest.mark.django_db(transaction=True)

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.hrefs.append(value)


def internal(href: str) -> str | None:
    parts = urlsplit(href)
    if parts.netloc and parts.netloc not in ("testserver", "127.0.0.1:8000"):
        return None
    path = parts.path
    if not path.startswith("/") or path.startswith(("/admin", "/static", "/preview")):
        return None
    return path + (f"?{parts.query}" if parts.query else "")


def capture(client: Client, start: list[str]) -> dict[str, tuple[int, str, bytes]]:
    """Every page reachable from `start` by following internal links and API fields."""
    seen: dict[str, tuple[int, str, bytes]] = {}
    queue = list(start)
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        response = client.get(url)
        body = response.content if not response.streaming else b"".join(response)
        headers = {
            k: v
            for k, v in response.headers.items()
            if k.lower() not in ("etag", "date", "x-request-id")
        }
        seen[url] = (response.status_code, json.dumps(headers, sort_keys=True), body)
        kind = response.headers.get("Content-Type", "")
        if "html" in kind:
            parser = Links()
            parser.feed(body.decode())
            queue.extend(u for u in map(internal, parser.hrefs) if u)
        elif "json" in kind and url.startswith("/api/v1/"):
            for value in re.findall(r'"(?:url|next|previous|self|href)": "([^"]+)"', body.decode()):
                if (u := internal(value)) and u.startswith("/api/v1/"):
                    queue.append(u)
    return seen


def api_start() -> list[str]:
    urls = ["/api/openapi.json"]
    for kind in ("entries", "episodes", "people", "organisations", "tags"):
        urls.append(f"/api/v1/{kind}/")
        urls.append(f"/api/v1/{kind}/?page=2")
    for entry in Entry.objects.all():
        urls.append(f"/api/v1/entries/{entry.slug}/")
        urls.append(f"/glossary/{entry.slug}/")
        first = entry.term.split()[0]
        urls.append(f"/api/v1/search/?q={first}")
        urls.append(f"/search/?q={first}")
    return urls


def admin_pages(client: Client) -> dict[str, bytes]:
    pages = {}
    for entry in Entry.objects.order_by("pk"):
        for url in (
            f"/admin/glossary/entry/{entry.pk}/history/",
            f"/admin/glossary/entry/{entry.pk}/change/",
        ):
            body = client.get(url).content
            body = re.sub(rb'name="csrfmiddlewaretoken" value="[^"]+"', b"csrf", body)
            pages[url] = body
    for source in Source.objects.order_by("pk"):
        # The source page shows its link-check history and fingerprints.
        body = client.get(f"/admin/glossary/source/{source.pk}/change/").content
        pages[f"source {source.pk}"] = re.sub(
            rb'name="csrfmiddlewaretoken" value="[^"]+"', b"csrf", body
        )
    for url in (
        "/admin/editorial/workflowevent/",
        "/admin/editorial/interestdisclosurewaiver/",
        "/admin/glossary/linkcheck/",
        "/admin/glossary/entryversion/",
        "/admin/taggit/tag/",
        "/admin/editorial/scheduledaction/",
        "/admin/glossary/source/",
        "/admin/dashboard/",
    ):
        body = client.get(url).content
        pages[url] = re.sub(rb'name="csrfmiddlewaretoken" value="[^"]+"', b"csrf", body)
    return pages


def people() -> list[tuple[Any, ...]]:
    return [
        (
            u.username,
            u.email,
            u.first_name,
            u.is_staff,
            u.is_superuser,
            u.date_joined,
            sorted(g.name for g in u.groups.all()),
        )
        for u in User.objects.order_by("username").prefetch_related("groups")
    ]


def build_site(editor: User, second_editor: User, writer: User) -> None:
    """The demo, plus history: a withdrawn entry, a scheduled action, a waiver, checks."""
    from demo.content import load_demo

    load_demo()
    source = Source.objects.first()
    assert source is not None
    LinkCheck.objects.create(
        source=source,
        url=source.url,
        checked_at=NOW - datetime.timedelta(days=1),
        outcome="ok",
        status_code=200,
        final_url=source.url,
        redirects=[],
        elapsed_ms=120,
        fingerprint="a" * 64,
    )
    Source.objects.filter(pk=source.pk).update(
        last_fingerprint="a" * 64, confirmed_fingerprint="a" * 64, health="ok"
    )
    # A withdrawn entry: written, reviewed, published, then unpublished by an editor.
    withdrawn = Entry.objects.create(
        term="Withdrawn term",
        slug="withdrawn-term",
        summary="Gone.",
        body="Withdrawn since.",
        created_by=writer,
    )
    withdrawn.tags.add("networking")
    save_version(withdrawn, user=writer, comment="Draft.")
    workflow.submit_for_review(withdrawn, user=writer)
    workflow.publish_entry(withdrawn, user=editor, override_reason="Test: publish unsourced.")
    workflow.unpublish_entry(withdrawn, user=second_editor, comment="Wrong.")
    # A scheduled publication waiting.
    pending = Entry.objects.create(
        term="Pending term", slug="pending-term", summary="Soon.", created_by=writer
    )
    save_version(pending, user=writer, comment="Draft.")
    workflow.submit_for_review(pending, user=writer)
    scheduling.schedule(
        pending, action="publish", due_at=NOW + datetime.timedelta(days=2), user=editor
    )
    # An assignment: the writer is to finish it (editorial.assignments).
    assignments.assign(
        pending,
        role="writer",
        assignee=writer,
        due_on=NOW.date() + datetime.timedelta(days=3),
        user=editor,
        note="Finish before it goes out.",
    )
    # A waiver: the editor decided an organisation's interest needs no disclosure.
    InterestDisclosureWaiver.objects.create(
        entry=withdrawn,
        organisation=Organisation.objects.order_by("pk")[0],
        decided_by=editor,
        decided_at=NOW,
        reason="Not a commercial interest here.",
    )
    # The desk's threads on the seed entry: one open on a passage of the body, one resolved.
    seed = Entry.objects.get(slug="interconnect")
    thread = comments.start_thread(
        seed, user=editor, field="body", text="Which keynote?", quote=seed.body.split(".")[0]
    )
    comments.reply(thread, user=writer, text="Cisco Live.")
    done = comments.start_thread(seed, user=writer, field="citations", text="Re-checked.")
    comments.resolve(done, user=second_editor)
    LogEntry.objects.create(
        user=editor,
        content_type=ContentType.objects.get_for_model(Entry),
        object_id=str(pending.pk),
        object_repr=str(pending),
        action_flag=CHANGE,
        change_message="Changed summary.",
    )


def test_export_then_import_into_an_empty_database_serves_the_same_site(
    tmp_path: Path, settings: Any, roles: None
) -> None:
    settings.PUBLIC_PAGE_CACHE = False  # every page built from the database, both times
    with time_machine.travel(NOW, tick=False):
        writer = member("wanda_writer", Role.WRITER)
        editor = member("ed_editor", Role.EDITOR)
        second_editor = member("eve_editor", Role.EDITOR)
        User.objects.create_superuser("root", "root@example.com", "pw-root-123")
        build_site(editor, second_editor, writer)
        start = ["/", "/feed/", "/sitemap.xml", "/robots.txt", *api_start()]
        before = capture(Client(), start)
        admin = Client()
        admin.force_login(User.objects.get(username="root"))
        admin_before = admin_pages(admin)
        people_before = people()
        counts = {
            "versions": EntryVersion.objects.count(),
            "events": WorkflowEvent.objects.count(),
            "scheduled": ScheduledAction.objects.count(),
            "comments": Comment.objects.count(),
        }

        path = tmp_path / "glossary.json"
        call_command("export_glossary", str(path), "--no-progress")
        text = path.read_text()
        assert "pw-" not in text and "password" not in text
        call_command("flush", interactive=False)
        call_command("import_glossary", str(path), "--no-progress")

        after = capture(Client(), start)
        # People arrive without passwords (the admin shows "Change password" only to
        # someone who has one): the administrator sets theirs, as after a real import.
        root = User.objects.get(username="root")
        root.set_password("pw-root-123")
        root.save()
        admin = Client()
        admin.force_login(User.objects.get(username="root"))
        admin_after = admin_pages(admin)
        # Group ids are the database's own (the flush above renumbers them); the people,
        # their names, flags, dates and roles come back the same.
        assert people() == people_before

    assert {
        "versions": EntryVersion.objects.count(),
        "events": WorkflowEvent.objects.count(),
        "scheduled": ScheduledAction.objects.count(),
        "comments": Comment.objects.count(),
    } == counts
    print(f"compared {len(before)} public answers and {len(admin_before)} admin pages")
    assert len(before) > 40, sorted(before)
    assert sorted(after) == sorted(before)
    for url in before:
        assert after[url] == before[url], url + "\n" + _show_diff(before[url], after[url])
    assert sorted(admin_after) == sorted(admin_before)
    for url in admin_before:
        assert admin_after[url] == admin_before[url], (
            url + "\n" + _show_diff((0, "", admin_before[url]), (0, "", admin_after[url]))
        )
    # The withdrawn entry stays withdrawn.
    assert before["/glossary/withdrawn-term/"][0] in (404, 410)
    assert User.objects.get(username="wanda_writer").groups.get().name == Role.WRITER.value
    assert not User.objects.get(username="wanda_writer").has_usable_password()


def _show_diff(a: tuple[int, str, bytes], b: tuple[int, str, bytes]) -> str:
    import difflib

    if a[1] != b[1]:
        return "\n".join(difflib.unified_diff(a[1].split(", "), b[1].split(", "), lineterm=""))
    return "\n".join(
        difflib.unified_diff(
            a[2].decode(errors="replace").splitlines(),
            b[2].decode(errors="replace").splitlines(),
            lineterm="",
        )
    )
