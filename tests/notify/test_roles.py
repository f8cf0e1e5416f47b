"""The admin role can read the email log once the migrations ran; other roles cannot."""

import pytest
from django.contrib.auth.models import Group

pytestmark = pytest.mark.django_db


def test_the_migrations_give_admins_the_email_log_and_preferences() -> None:
    admin = set(Group.objects.get(name="admin").permissions.values_list("codename", flat=True))
    assert {"view_notification", "change_notificationpreference"} <= admin
    editor = set(Group.objects.get(name="editor").permissions.values_list("codename", flat=True))
    assert "view_notification" not in editor
