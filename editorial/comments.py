"""Comments on drafts: the desk's threads about an entry, never seen by readers.

A thread starts on one field of an entry (for the summary or the body, on a quoted
passage of it) and is credited to whoever wrote each comment and when. Replies
follow in order; anyone who may comment may resolve a thread or reopen it; only a
comment's author may change its text. An @username in a comment tells that person
(editorial.notify.tell_mentioned). Open threads are a publish check
(editorial.gates, "2 unresolved comments").

The rule these functions keep: a comment never changes what readers see. They
write Comment rows, the admin's log and notifications, and nothing else: not the
entry (so no editor's open form goes stale and no version is recorded), not a
version, not the site's generation token. A thread outlives the version it was
written on; when its quoted passage is no longer in the working copy, `threads`
says the passage has changed since.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from editorial import notify
from editorial.models import Comment
from editorial.permissions import Action, can, require
from glossary.inbound import control_character
from glossary.models import Entry

log = logging.getLogger(__name__)

Field = Comment.Field

# The fields whose text a thread can quote a passage of.
QUOTABLE = (Field.SUMMARY, Field.BODY)
# Longer than any note a desk writes; past it, a comment is a document pasted by mistake.
MAX_CHARS = 5000
# An @ that starts a word (so not an email address) and a username ending on a letter or
# digit (so "@writer." at the end of a sentence names "writer").
MENTION = re.compile(r"(?<![\w.+-])@([\w.@+-]*\w)")


class CommentError(Exception):
    """A comment that cannot be posted or changed; the message names the problem."""


@dataclass(frozen=True)
class Thread:
    root: Comment
    replies: list[Comment]
    # The quoted passage is no longer in the working copy's field.
    passage_changed: bool

    @property
    def comments(self) -> list[Comment]:
        return [self.root, *self.replies]


def _field_text(entry: Entry, field: str) -> str:
    return str(getattr(entry, field, "") or "")


def _clean_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise CommentError("The comment is empty: write something before posting.")
    bad = control_character(text)
    if bad is not None:
        line, char = bad
        raise CommentError(
            f"Line {line} of the comment holds the control character {char}, which is not "
            "text (pasted from a binary file?). Remove it and post again."
        )
    if len(text) > MAX_CHARS:
        raise CommentError(
            f"The comment is {len(text)} characters long; the most a comment holds is "
            f"{MAX_CHARS}. Shorten it, or put the longer text in the entry's notes."
        )
    return text


def mentioned_users(text: str, entry: Entry | None = None) -> list[User]:
    """The desk members `text` names with @username, each once, in the order named.

    Raises CommentError naming a username nobody has, or someone who cannot read the
    desk's comments (who would be told of something they cannot open), `entry`'s
    included: a person on other shows' teams only cannot open it.
    """
    names = list(dict.fromkeys(MENTION.findall(text)))
    if not names:
        return []
    # Case-insensitive, as people type names; an exact match wins over another casing.
    pattern = r"^(" + "|".join(re.escape(n) for n in names) + r")$"
    candidates = list(User.objects.filter(username__iregex=pattern, is_active=True))
    users = []
    for name in names:
        exact = [u for u in candidates if u.username == name]
        matches = exact or [u for u in candidates if u.username.lower() == name.lower()]
        if not matches:
            raise CommentError(
                f"Nobody on the desk has the username “@{name}”. Check the spelling, or "
                "write the name without the @."
            )
        user = matches[0]
        if not can(user, Action.COMMENT):
            raise CommentError(
                f"“@{name}” cannot read the desk's comments, so they would not see this one. "
                "Write the name without the @."
            )
        if entry is not None and not can(user, Action.COMMENT, entry):
            raise CommentError(
                f"“@{name}” is not on this entry's show team, so they could not open it. "
                "Write the name without the @."
            )
        users.append(user)
    return users


def _log(user: User, comment: Comment, flag: int, message: str) -> None:
    LogEntry.objects.log_actions(user.pk, [comment], flag, message, single_object=True)
    log.info(
        "comment %s on entry %s: %s by %s", comment.pk, comment.entry_id, message, user.username
    )


def _tell(comment: Comment, users: list[User], actor: User) -> None:
    if users:
        notify.tell_mentioned(comment, [u.pk for u in users], actor=actor)


def start_thread(entry: Entry, *, user: User, field: str, text: str, quote: str = "") -> Comment:
    """A new thread on `field` of `entry`, anchored to `quote` when given."""
    require(user, Action.COMMENT, entry)
    if field not in Field.values:
        raise CommentError(
            f"“{field}” is not a part of an entry a comment can be about; choose one of: "
            + ", ".join(str(label).lower() for label in Field.labels)
            + "."
        )
    text = _clean_text(text)
    quote = quote.strip()
    if quote:
        label = Field(field).label.lower()
        if field not in QUOTABLE:
            raise CommentError(
                f"Only a passage of the summary or the body can be quoted, not of the {label}. "
                "Leave the passage empty to comment on the whole field."
            )
        if quote not in _field_text(entry, field):
            raise CommentError(
                f"The passage “{quote[:80]}” is not in the saved {label}. Copy it from the "
                "saved text (save your changes first), or leave the passage empty."
            )
    mentioned = mentioned_users(text, entry)
    with transaction.atomic():
        comment = Comment.objects.create(
            entry=entry,
            version=entry.versions.order_by("-number").first(),
            field=field,
            quote=quote,
            text=text,
            author=user,
        )
        _log(user, comment, ADDITION, f"Commented on the {Field(field).label.lower()}.")
        _tell(comment, mentioned, user)
    return comment


def _thread_of(comment: Comment) -> Comment:
    return comment.parent or comment


def reply(thread: Comment, *, user: User, text: str) -> Comment:
    """A reply at the end of `thread` (a reply to a reply joins the same thread)."""
    require(user, Action.COMMENT, thread)
    root = _thread_of(thread)
    text = _clean_text(text)
    mentioned = mentioned_users(text, root.entry)
    with transaction.atomic():
        comment = Comment.objects.create(
            entry_id=root.entry_id,
            version=root.entry.versions.order_by("-number").first(),
            parent=root,
            field=root.field,
            text=text,
            author=user,
        )
        _log(user, comment, ADDITION, "Replied.")
        _tell(comment, mentioned, user)
    return comment


def edit(comment: Comment, *, user: User, text: str) -> Comment:
    """Change a comment's text; only its author may. Newly named people are told."""
    require(user, Action.COMMENT, comment)
    if comment.author_id != user.pk:
        raise CommentError("Only the person who wrote a comment can change it; reply instead.")
    text = _clean_text(text)
    before = {u.pk for u in mentioned_users(comment.text)} if "@" in comment.text else set()
    mentioned = [u for u in mentioned_users(text, comment.entry) if u.pk not in before]
    with transaction.atomic():
        comment.text = text
        comment.edited_at = timezone.now()
        comment.save(update_fields=["text", "edited_at"])
        _log(user, comment, CHANGE, "Edited the comment.")
        _tell(comment, mentioned, user)
    return comment


def resolve(thread: Comment, *, user: User) -> Comment:
    """Mark `thread` resolved; a thread resolved meanwhile says who did it."""
    require(user, Action.COMMENT, thread)
    root = _thread_of(thread)
    with transaction.atomic():
        done = Comment.objects.filter(pk=root.pk, resolved_at__isnull=True).update(
            resolved_at=timezone.now(), resolved_by=user
        )
        root.refresh_from_db()
        if not done:
            who = root.resolved_by.get_username() if root.resolved_by else "someone"
            raise CommentError(f"{who} already resolved this thread.")
        _log(user, root, CHANGE, "Resolved the thread.")
    return root


def reopen(thread: Comment, *, user: User) -> Comment:
    """Open a resolved thread again."""
    require(user, Action.COMMENT, thread)
    root = _thread_of(thread)
    with transaction.atomic():
        done = Comment.objects.filter(pk=root.pk, resolved_at__isnull=False).update(
            resolved_at=None, resolved_by=None
        )
        root.refresh_from_db()
        if not done:
            raise CommentError("This thread is already open.")
        _log(user, root, CHANGE, "Reopened the thread.")
    return root


def threads(entry: Entry) -> list[Thread]:
    """Every thread on `entry`, open ones first, each with its replies, in one query."""
    rows = list(
        Comment.objects.filter(entry=entry)
        .select_related("author", "resolved_by", "version")
        .order_by("created_at", "pk")
    )
    replies: dict[int, list[Comment]] = {}
    for row in rows:
        if row.parent_id is not None:
            replies.setdefault(row.parent_id, []).append(row)
    found = [
        Thread(
            root,
            replies.get(root.pk, []),
            bool(root.quote) and root.quote not in _field_text(entry, root.field),
        )
        for root in rows
        if root.parent_id is None
    ]
    return sorted(found, key=lambda t: t.root.is_resolved)


# The demo's threads on the seed entry (docs/demo.md): written by the demo logins, so they
# appear once those exist, whichever of load_demo and ensure_demo_admin runs last.
DEMO_ENTRY = "interconnect"
DEMO_PASSAGE = "NVIDIA’s NVLink is the best-known example"
DEMO_OPEN = [
    (
        "editor",
        "Best-known by what measure? @factchecker, does a source we cite back this, or "
        "should it say “a well-known example”?",
    ),
    (
        "factchecker",
        "The NVLink source calls it the most widely deployed scale-up link, so "
        "“best-known” holds. @writer, cite it right here?",
    ),
    ("writer", "Yes: I will add the citation in the next version."),
]
DEMO_RESOLVED = ("writer", "All three sources re-read against the entry on October 24.")


def add_demo_thread() -> bool:
    """Add the demo's two threads to the seed entry, once; whether they were added.

    Nothing happens without the seed entry or the demo logins (writer, factchecker,
    editor), or when the demo's first comment is already there.
    """
    entry = Entry.objects.filter(slug=DEMO_ENTRY).first()
    people = {
        u.username: u for u in User.objects.filter(username__in=["writer", "factchecker", "editor"])
    }
    if entry is None or len(people) < 3 or DEMO_PASSAGE not in entry.body:
        return False
    author, text = DEMO_OPEN[0]
    if Comment.objects.filter(entry=entry, author=people[author], text=text).exists():
        return False
    with transaction.atomic():
        thread = start_thread(
            entry, user=people[author], field="body", text=text, quote=DEMO_PASSAGE
        )
        for author, text in DEMO_OPEN[1:]:
            reply(thread, user=people[author], text=text)
        author, text = DEMO_RESOLVED
        done = start_thread(entry, user=people[author], field="citations", text=text)
        resolve(done, user=people["factchecker"])
    return True
