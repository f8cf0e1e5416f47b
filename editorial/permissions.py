"""Who may do what: the four roles and the one question every view and action asks.

Roles are Django groups whose permissions are defined here and nowhere else;
`manage.py setup_roles` (and the data migration) make the database match.
Views, admin actions and workflow functions all go through `can`/`require`,
so hiding a button is never the only thing standing in the way.

Shows are the unit of permission (docs/shows-and-teams.md). An account on no show's
team (`editorial.ShowMembership`) keeps the network-wide role its group gives it, as
before teams existed. An account on one or more teams is a *show member*: it works only
on those shows' entries, episodes and everything hanging from them, with the role its
membership gives on each show, and its groups no longer count (`ShowTeamBackend`).
Superusers and members of the admin group are network-wide whatever their memberships.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.apps import apps as live_apps
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission, User
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, QuerySet
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


def granted(name: str, perms: list[str]) -> bool:
    """Whether the permission `name` is among `perms` (a role's list, `app.*` included)."""
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
        target = {pk for name, pk in by_name.items() if granted(name, perms)}
        current = set(group.permissions.values_list("pk", flat=True))
        group.permissions.add(*(target - current))
        group.permissions.remove(*(current - target))
        changes[role.value] = (len(target - current), len(current - target))
    return changes


# The roles a show's team can give (an admin is one for the whole network).
TEAM_ROLES = (Role.WRITER, Role.FACT_CHECKER, Role.EDITOR)

# Set on a user by ShowTeamBackend.get_user in the query that loads it, so a network-wide
# account costs no query more than before teams existed.
_ON_A_TEAM = "on_a_show_team"
_SHOW_ROLES = "_show_roles_cache"


def _memberships() -> Any:
    # editorial.models is a sibling of this module in the layers (pyproject.toml).
    return live_apps.get_model("editorial", "ShowMembership")


def show_roles(user: Any) -> dict[int, Role] | None:
    """The role `user` has on each show whose team they are on, by show id; None for a
    network-wide account (no membership, a superuser or an admin). Cached on `user`."""
    if user is None or not user.is_authenticated:
        return None
    if hasattr(user, _SHOW_ROLES):
        cached: dict[int, Role] | None = getattr(user, _SHOW_ROLES)
        return cached
    roles: dict[int, Role] | None = None
    on_a_team = getattr(user, _ON_A_TEAM, None)
    if user.is_superuser or on_a_team is False:
        roles = None
    else:
        rows = dict(_memberships().objects.filter(user=user).values_list("show_id", "role"))
        if rows and not user.groups.filter(name=Role.ADMIN.value).exists():
            roles = {show_id: Role(role) for show_id, role in rows.items()}
    setattr(user, _SHOW_ROLES, roles)
    return roles


def user_shows(user: Any) -> set[int] | None:
    """The ids of the shows `user` works on; None when they work on the whole network."""
    roles = show_roles(user)
    return None if roles is None else set(roles)


def show_of(obj: Any) -> int | None:
    """The id of the show `obj` belongs to: a show itself, an entry's or an episode's show,
    the show of the entry a part (quote, citation...) or a version belongs to, or of the
    episode a sponsorship, appearance or transcript hangs from. None: the whole network."""
    if obj._meta.model_name == "show":
        return int(obj.pk) if obj.pk is not None else None
    if hasattr(obj, "show_id"):
        show_id: int | None = obj.show_id
        return show_id
    if hasattr(obj, "entry_id"):
        return show_of(obj.entry) if obj.entry_id is not None else None
    if hasattr(obj, "episode_id"):
        return show_of(obj.episode) if obj.episode_id is not None else None
    return None


def role_grants(role: Role, action: Action | str) -> bool:
    """Whether `role` (as ROLES defines it) holds every permission `action` needs."""
    return all(granted(name, ROLES[role]) for name in ACTION_PERMISSIONS[Action(action)])


def can(user: Any, action: Action | str, obj: Any = None) -> bool:
    """Whether `user` may do `action` to `obj` (an entry, a part of one, an episode, a
    show...), or with no `obj` to some entry. A show member may act on an object only
    with the role their team gives on its show; state rules live in editorial.workflow."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if not user.has_perms(ACTION_PERMISSIONS[Action(action)]):
        return False
    if obj is None:
        return True
    roles = show_roles(user)
    if roles is None:
        return True
    show_id = show_of(obj)
    return show_id is not None and show_id in roles and role_grants(roles[show_id], action)


def acting_user(request: HttpRequest) -> User:
    """The signed-in person behind a desk request (the admin lets no one else in)."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise PermissionDenied("Sign in to the desk first.")
    return user


def holds(user: Any, perm: str, obj: Any) -> bool:
    """Whether `user` holds the model permission `perm` ("glossary.change_episode") on
    `obj`: as Django says for a network-wide account, as the role on `obj`'s show says
    for a show member (the admin's object-level question)."""
    if not user.has_perm(perm):
        return False
    roles = show_roles(user)
    if roles is None:
        return True
    show_id = show_of(obj)
    return show_id is not None and show_id in roles and granted(perm, ROLES[roles[show_id]])


def shows_where(user: Any, action: Action | str) -> set[int] | None:
    """The ids of the shows where `user`'s role allows `action`; None: every show."""
    roles = show_roles(user)
    if roles is None:
        return None
    return {show_id for show_id, role in roles.items() if role_grants(role, action)}


def require(user: Any, action: Action | str, obj: Any = None) -> None:
    """Raise PermissionDenied, naming what was refused, unless `user` may do `action`
    (to `obj`, when given)."""
    if can(user, action, obj):
        return
    label = Action(action).value.replace("_", " ")
    if obj is not None and can(user, action):
        raise PermissionDenied(
            f"You do not have permission to {label} “{obj}”: it belongs to "
            f"{show_name(show_of(obj))}, and your role there does not allow it."
        )
    raise PermissionDenied(f"You do not have permission to {label} entries.")


def show_name(show_id: int | None) -> str:
    """A show's name as a refusal names it (“the whole network” for none)."""
    if show_id is None:
        return "the whole network"
    show = live_apps.get_model("glossary", "Show").objects.filter(pk=show_id).first()
    return f"the show “{show}”" if show is not None else "another show"


def for_user(queryset: QuerySet[Any], user: Any, show_path: str = "show") -> QuerySet[Any]:
    """`queryset` narrowed to the rows `user` works on: everything for a network-wide
    account, only their shows' rows (reached through `show_path`) for a show member."""
    shows = user_shows(user)
    if shows is None:
        return queryset
    if show_path == "pk":
        return queryset.filter(pk__in=shows)
    return queryset.filter(**{f"{show_path}__in": shows})


class ShowTeamBackend(ModelBackend):
    """Django's model backend, where a show member's permissions are their team roles'.

    A show member holds, on the model level, every permission some membership role gives
    (what they may do *somewhere*), and nothing from their groups; `can` narrows that to
    the object's show. Loading the signed-in user says in the same query whether they are
    on a team, so a network-wide account's pages cost no query more.
    """

    def get_user(self, user_id: Any) -> Any:
        memberships = _memberships().objects.filter(user=OuterRef("pk"))
        user = (
            User._default_manager.annotate(**{_ON_A_TEAM: Exists(memberships)})
            .filter(pk=user_id)
            .first()
        )
        return user if user is not None and self.user_can_authenticate(user) else None

    def _get_group_permissions(self, user_obj: Any) -> Any:
        roles = show_roles(user_obj)
        if roles is None:
            return super()._get_group_permissions(user_obj)  # type: ignore[misc]
        names = {role.value for role in roles.values()}
        return Permission.objects.filter(group__name__in=names)
