import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError


def test_it_creates_an_admin_and_one_login_per_role(db, settings):
    settings.DEBUG = True
    out = io.StringIO()
    call_command("ensure_demo_admin", stdout=out)
    assert User.objects.get(username="admin").is_superuser
    roles = {
        u.username: [g.name for g in u.groups.all()]
        for u in User.objects.filter(username__in=["writer", "factchecker", "editor", "editor2"])
    }
    assert roles == {
        "writer": ["writer"],
        "factchecker": ["fact-checker"],
        "editor": ["editor"],
        "editor2": ["editor"],
    }
    assert User.objects.get(username="editor").check_password("glossary-demo")
    assert "writer" in out.getvalue() and "glossary-demo" in out.getvalue()


def test_running_it_twice_keeps_one_user_each(db, settings):
    settings.DEBUG = True
    call_command("ensure_demo_admin", stdout=io.StringIO())
    call_command("ensure_demo_admin", stdout=io.StringIO())
    assert User.objects.count() == 5


def test_it_refuses_with_debug_off(db, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG off"):
        call_command("ensure_demo_admin", stdout=io.StringIO())
    assert not User.objects.exists()


def test_every_demo_login_has_an_address_so_the_demo_emails_reach_someone(db, settings):
    settings.DEBUG = True
    User.objects.create_user("editor", "ed@newsroom.example")  # one a person set
    out = io.StringIO()
    call_command("ensure_demo_admin", stdout=out)
    addresses = dict(User.objects.values_list("username", "email"))
    assert addresses == {
        "admin": "admin@glossary-demo.example",
        "writer": "writer@glossary-demo.example",
        "factchecker": "factchecker@glossary-demo.example",
        "editor": "ed@newsroom.example",
        "editor2": "editor2@glossary-demo.example",
    }
    assert "writer@glossary-demo.example (writer)" in out.getvalue()
