"""Who may do what: the four roles and the one question every view and action asks.

Roles are Django groups whose permissions are defined here and nowhere else;
`manage.py setup_roles` (and the data migration) make the database match.
Views, admin actions and workflow functions all go through `can`/`require`,
so hiding a button is never the only thing standing in the way.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.apps import apps as live_apps
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest


class Role(StrEnum):
    WRITER = "writer"
    FACT_CHECKER = "fact-checker"
    EDITOR = "editor"
    ADMIN = "admin"


class Action(StrEnum):
    """Everything a person can do to an entry, as the permission matrix names it."""

    VIEW = "view"
    ADD = "add"
    EDIT = "edit"
    DELETE = "delete"
    SUBMIT = "submit"
    REQUEST_CHANGES = "request_changes"
    PUBLISH = "publish"
    OVERRIDE_GATES = "override_gates"
    UNPUBLISH = "unpublish"
    ARCHIVE = "archive"
    SCHEDULE = "schedule"
    ROLLBACK = "rollback"
    CONFIRM_CITATION = "confirm_citation"
    SHARE_PREVIEW = "share_preview"
    MANAGE_TAGS = "manage_tags"
    COMMENT = "comment"
    ASSIGN = "assign"


# The permissions each action needs (all of them).
ACTION_PERMISSIONS: dict[Action, tuple[str, ...]] = {
    Action.VIEW: ("glossary.view_entry",),
    Action.ADD: ("glossary.add_entry", "editorial.edit_content"),
    Action.EDIT: ("glossary.change_entry", "editorial.edit_content"),
    Action.DELETE: ("glossary.delete_entry",),
    Action.SUBMIT: ("glossary.view_entry", "editorial.submit_entry"),
    Action.REQUEST_CHANGES: ("glossary.view_entry", "editorial.review_entry"),
    Action.PUBLISH: ("glossary.view_entry", "editorial.publish_entry"),
    Action.OVERRIDE_GATES: ("editorial.publish_entry", "editorial.override_gates"),
    Action.UNPUBLISH: ("glossary.view_entry", "editorial.unpublish_entry"),
    Action.ARCHIVE: ("glossary.view_entry", "editorial.archive_entry"),
    Action.SCHEDULE: ("glossary.view_entry", "editorial.schedule_entry"),
    Action.ROLLBACK: ("glossary.change_entry", "editorial.rollback_entry"),
    Action.CONFIRM_CITATION: ("glossary.change_citation", "editorial.confirm_citation"),
    Action.SHARE_PREVIEW: ("glossary.view_entry", "editorial.share_preview"),
    # Renaming, merging or deleting a tag changes every entry carrying it.
    Action.MANAGE_TAGS: ("taggit.change_tag", "editorial.publish_entry"),
    # Commenting, replying, resolving and reopening threads (editorial.comments); only a
    # comment's author may change its text, which the comments module asks itself.
    Action.COMMENT: ("glossary.view_entry", "editorial.view_comment", "editorial.add_comment"),
    # Assigning, reassigning and planning entries (editorial.assignments); an assignee marks
    # their own assignment done without it.
    Action.ASSIGN: ("glossary.view_entry", "editorial.assign_entry"),
}

_ENTRY_PARTS = ("episodereference", "quote", "disclosure", "citation", "seealso")
_REFERENCE_DATA = (
    "show",
    "episode",
    "person",
    "organisation",
    "sponsorship",
    "appearance",
    "source",
)
_ALL_GLOSSARY = (
    "entry",
    "entryversion",
    "entryredirect",
    "linkcheck",
    *_ENTRY_PARTS,
    *_REFERENCE_DATA,
)


def _crud(model: str, *verbs: str, app: str = "glossary") -> list[str]:
    return [f"{app}.{verb}_{model}" for verb in verbs]


def _viewer() -> list[str]:
    perms = [p for m in _ALL_GLOSSARY for p in _crud(m, "view")]
    # Everyone on the desk sees who is assigned what ("My work", the calendar).
    return perms + ["editorial.view_workflowevent", "editorial.view_assignment", "taggit.view_tag"]


def _commenter() -> list[str]:
    # Writers, fact-checkers and editors talk about drafts in comment threads.
    return ["editorial.view_comment", "editorial.add_comment"]


def _writer() -> list[str]:
    perms = _viewer() + _commenter()
    perms += _crud("entry", "add", "change")
    perms += [p for m in _ENTRY_PARTS for p in _crud(m, "add", "change", "delete")]
    perms += [p for m in _REFERENCE_DATA for p in _crud(m, "add", "change")]
    perms += ["taggit.add_tag"]
    perms += ["editorial.edit_content", "editorial.submit_entry", "editorial.share_preview"]
    return perms


def _fact_checker() -> list[str]:
    perms = _viewer() + _commenter()
    # change_entry opens the entry's form; without edit_content its own fields stay
    # read-only, and only the citation rows (and the source library) can be changed.
    perms += _crud("entry", "change")
    perms += _crud("citation", "add", "change")
    perms += _crud("source", "add", "change")
    perms += ["editorial.confirm_citation"]
    return perms


def _editor() -> list[str]:
    # No delete: an entry's history goes with it, so editors archive and admins delete.
    perms = _writer()
    perms += [
        "editorial.review_entry",
        "editorial.publish_entry",
        "editorial.override_gates",
        "editorial.unpublish_entry",
        "editorial.archive_entry",
        "editorial.schedule_entry",
        "editorial.rollback_entry",
        "editorial.assign_entry",
        # Renaming, merging and deleting tags (each recorded in the entries they touch).
        "taggit.change_tag",
        "taggit.delete_tag",
    ]
    return perms


def _admin() -> list[str]:
    # Everything in the content and editorial apps (including models added later),
    # plus managing people and their roles.
    return [
        "glossary.*",
        "editorial.*",
        "taggit.*",
        *_crud("user", "add", "change", "delete", "view", app="auth"),
        *_crud("group", "add", "change", "delete", "view", app="auth"),
    ]


ROLES: dict[Role, list[str]] = {
    Role.WRITER: _writer(),
    Role.FACT_CHECKER: _fact_checker(),
    Role.EDITOR: _editor(),
    Role.ADMIN: _admin(),
}


def _granted(name: str, perms: list[str]) -> bool:
    return name in perms or f"{name.split('.', 1)[0]}.*" in perms


def sync_roles(apps: Any = None) -> dict[str, tuple[int, int]]:
    """Make each role's group hold exactly its permissions; safe to run any number of times.

    `apps` is a migration's app registry (or None for the live one). Permissions
    not in the database yet (a model added by a later migration) are skipped;
    the next `setup_roles` or migration adds them. Returns, per role, how many
    permissions were added and removed.
    """
    if apps is None:
        apps = live_apps
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    by_name: dict[str, int] = {
        f"{app_label}.{codename}": pk
        for pk, app_label, codename in Permission.objects.values_list(
            "pk", "content_type__app_label", "codename"
        )
    }
    changes: dict[str, tuple[int, int]] = {}
    for role, perms in ROLES.items():
        group, _ = Group.objects.get_or_create(name=role.value)
        target = {pk for name, pk in by_name.items() if _granted(name, perms)}
        current = set(group.permissions.values_list("pk", flat=True))
        group.permissions.add(*(target - current))
        group.permissions.remove(*(current - target))
        changes[role.value] = (len(target - current), len(current - target))
    return changes


def can(user: Any, action: Action | str) -> bool:
    """Whether `user` may do `action` (to any entry; state rules live in editorial.workflow)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return bool(user.has_perms(ACTION_PERMISSIONS[Action(action)]))


def acting_user(request: HttpRequest) -> User:
    """The signed-in person behind a desk request (the admin lets no one else in)."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise PermissionDenied("Sign in to the desk first.")
    return user


def require(user: Any, action: Action | str) -> None:
    """Raise PermissionDenied, naming what was refused, unless `user` may do `action`."""
    if not can(user, action):
        label = Action(action).value.replace("_", " ")
        raise PermissionDenied(f"You do not have permission to {label} entries.")
