"""The roles: created by the migration, kept in line by `manage.py setup_roles`."""

from io import StringIO

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command

from editorial.permissions import ROLES, Role


def _perms(group: Group) -> set[str]:
    return {
        f"{app}.{code}"
        for app, code in group.permissions.values_list("content_type__app_label", "codename")
    }


@pytest.mark.django_db
def test_the_migration_creates_the_four_roles():
    assert set(Group.objects.values_list("name", flat=True)) >= {r.value for r in Role}


@pytest.mark.django_db
def test_setup_roles_is_idempotent():
    call_command("setup_roles", stdout=StringIO())
    before = {g.name: _perms(g) for g in Group.objects.all()}
    out = StringIO()
    call_command("setup_roles", stdout=out)
    after = {g.name: _perms(g) for g in Group.objects.all()}
    assert before == after
    assert "writer: 0 permission(s) added, 0 removed" in out.getvalue()
    assert Group.objects.filter(name="editor").count() == 1


@pytest.mark.django_db
def test_setup_roles_recreates_a_deleted_group_and_removes_stray_permissions():
    Group.objects.filter(name="fact-checker").delete()
    writer = Group.objects.get(name="writer")
    writer.permissions.add(Permission.objects.get(codename="publish_entry"))
    call_command("setup_roles", stdout=StringIO())
    assert Group.objects.filter(name="fact-checker").exists()
    assert "editorial.publish_entry" not in _perms(Group.objects.get(name="writer"))
    assert _perms(Group.objects.get(name="fact-checker")) == set(ROLES[Role.FACT_CHECKER])


@pytest.mark.django_db
def test_writers_and_fact_checkers_cannot_publish_but_editors_can():
    call_command("setup_roles", stdout=StringIO())
    assert "editorial.publish_entry" not in _perms(Group.objects.get(name="writer"))
    assert "editorial.publish_entry" not in _perms(Group.objects.get(name="fact-checker"))
    assert "editorial.publish_entry" in _perms(Group.objects.get(name="editor"))
    assert "editorial.publish_entry" in _perms(Group.objects.get(name="admin"))


@pytest.mark.django_db
def test_every_permission_a_role_names_exists():
    call_command("setup_roles", stdout=StringIO())
    for role, perms in ROLES.items():
        granted = _perms(Group.objects.get(name=role.value))
        missing = {p for p in perms if not p.endswith(".*")} - granted
        assert not missing, f"{role}: {missing}"
