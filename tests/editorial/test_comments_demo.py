"""The demo shows a comment thread on the seed entry, once, whichever of load_demo and
ensure_demo_admin runs last."""

import io

from django.core.management import call_command

from demo.content import load_demo
from editorial import comments, gates
from editorial.models import Comment, Notification
from glossary.models import Entry


def _demo_threads() -> list[tuple[str, str, int, bool]]:
    seed = Entry.objects.get(slug="interconnect")
    return [
        (t.root.field, t.root.author.username, len(t.replies), t.root.is_resolved)
        for t in comments.threads(seed)
    ]


def test_the_demo_logins_bring_a_thread_on_the_seed_entry(db, settings):
    settings.DEBUG = True
    load_demo()
    assert not Comment.objects.exists()  # nobody to have written it yet

    call_command("ensure_demo_admin", stdout=io.StringIO())

    assert _demo_threads() == [("body", "editor", 2, False), ("citations", "writer", 0, True)]
    [thread] = [t for t in comments.threads(Entry.objects.get(slug="interconnect")) if t.replies]
    assert thread.root.quote == "NVIDIA’s NVLink is the best-known example"
    assert not thread.passage_changed
    # The mentions reached the people named.
    assert set(Notification.objects.values_list("recipient__username", flat=True)) == {
        "factchecker",
        "writer",
    }
    [check] = [
        r
        for r in gates.run_gates(Entry.objects.get(slug="interconnect"))
        if r.code == gates.COMMENTS_RESOLVED
    ]
    assert check.message.startswith("1 unresolved comment: on the body")


def test_running_the_demo_again_adds_no_second_thread(db, settings):
    settings.DEBUG = True
    call_command("ensure_demo_admin", stdout=io.StringIO())
    load_demo()  # after the logins: load_demo adds the threads
    assert len(_demo_threads()) == 2

    load_demo()
    call_command("ensure_demo_admin", stdout=io.StringIO())

    assert len(_demo_threads()) == 2
    assert Comment.objects.count() == 4
