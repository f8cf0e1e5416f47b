"""The accounts the demo and the generator act as: staff in one role, nobody's login."""

from __future__ import annotations

from django.contrib.auth.models import Group, User

from editorial.permissions import Role, sync_roles


def member(username: str, role: Role) -> User:
    """A staff account in `role`, made once, with no password anyone could sign in with."""
    user, created = User.objects.get_or_create(
        username=username,
        defaults={"is_staff": True, "first_name": username.replace("-", " ").title()},
    )
    if created:
        user.set_unusable_password()  # nobody signs in as the generator or the demo
        user.save(update_fields=["password"])
    group = Group.objects.filter(name=role.value).first()
    if group is None:
        # A database emptied after migrating (`manage.py flush`) has lost the role groups
        # the data migration made: make them again, with their permissions.
        sync_roles()
        group = Group.objects.get(name=role.value)
    user.groups.add(group)
    return User.objects.get(pk=user.pk)  # fresh permission caches
