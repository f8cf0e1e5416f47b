"""The two-factor pages and the rule in front of the desk: enrol, sign in with a code or a
recovery code, no admin page before that, wrong codes counted by django-axes, and an
admin's reset written to the account's history."""

from __future__ import annotations

import re
from typing import Any

import pytest
import time_machine
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from editorial import twofactor
from tests.personas import client_for
from tests.twofactor.codes import NOW, STEP, app_code, enrol, password_sign_in, wrong_code

# Desk addresses someone might type instead of following the sign-in.
DESK_PAGES = [
    "/admin/",
    "/admin/dashboard/",
    "/admin/glossary/entry/",
    "/admin/glossary/entry/add/",
    "/admin/auth/user/",
    "/admin/notifications/",
    "/admin/2fa/",
]


@pytest.fixture(autouse=True)
def required(settings: Any) -> None:
    settings.DESK_REQUIRE_2FA = True


def location(response: Any) -> str:
    assert response.status_code == 302, response.status_code
    return str(response["Location"])


@time_machine.travel(NOW, tick=False)
@pytest.mark.parametrize("path", DESK_PAGES)
def test_an_editor_without_an_app_is_sent_to_enrol_from_any_desk_page(
    editor: User, path: str
) -> None:
    client = client_for(editor)
    assert location(client.get(path)).startswith("/admin/2fa/setup/?next=")
    assert location(client.post(path, {})).startswith("/admin/2fa/setup/?next=")


@time_machine.travel(NOW, tick=False)
def test_a_draft_preview_is_no_way_round_enrolment(editor: User, make_entry: Any) -> None:
    entry = make_entry("Backplane")
    response = client_for(editor).get(f"/preview/entry/{entry.pk}/")
    assert location(response).startswith("/admin/2fa/setup/")


@time_machine.travel(NOW, tick=False)
@pytest.mark.parametrize("path", DESK_PAGES)
def test_an_enrolled_person_is_asked_for_a_code_before_any_desk_page(
    writer: User, path: str
) -> None:
    enrol(writer)
    client = Client()
    assert location(password_sign_in(client, writer)) == "/admin/"
    assert location(client.get(path)) == f"/admin/2fa/verify/?next={path.replace('/', '%2F')}"


@time_machine.travel(NOW, tick=False)
def test_a_writer_without_an_app_uses_the_desk_with_a_password(writer: User) -> None:
    client = Client()
    password_sign_in(client, writer)
    assert client.get("/admin/").status_code == 200


@time_machine.travel(NOW, tick=False)
def test_with_the_setting_off_an_editor_uses_the_desk_with_a_password(
    editor: User, settings: Any
) -> None:
    settings.DESK_REQUIRE_2FA = False
    client = Client()
    password_sign_in(client, editor)
    page = client.get("/admin/")
    assert page.status_code == 200
    assert "Two-factor login: off" in page.content.decode()


def test_enrolling_shows_the_secret_confirms_a_code_and_shows_recovery_codes_once(
    editor: User,
) -> None:
    client = client_for(editor)
    with time_machine.travel(NOW, tick=False):
        page = client.get("/admin/2fa/setup/?next=/admin/dashboard/")
        text = page.content.decode()
        assert page.status_code == 200
        device = TOTPDevice.objects.get(user=editor, confirmed=False)
        assert twofactor.secret_text(device) in text
        assert device.config_url.replace("&", "&amp;") in text
        assert "<svg" in text  # the QR code
        wrong = client.post(
            "/admin/2fa/setup/", {"code": wrong_code(device), "next": "/admin/dashboard/"}
        )
        assert "That code is not right" in wrong.content.decode()
        assert f'value="{wrong_code(device)}"' in wrong.content.decode()  # kept as typed
        assert not twofactor.is_enrolled(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        done = client.post(
            "/admin/2fa/setup/", {"code": app_code(device), "next": "/admin/dashboard/"}
        )
        assert done.status_code == 200
        shown = re.findall(r"<li><code>([a-z2-7]+)</code></li>", done.content.decode())
        assert len(shown) == twofactor.RECOVERY_CODE_COUNT
        assert twofactor.is_enrolled(editor)
        # This session is verified: the desk opens, and the codes are never shown again.
        assert client.get("/admin/dashboard/").status_code == 200
        overview = client.get("/admin/2fa/").content.decode()
        assert not any(code in overview for code in shown)
        assert "10</strong> unused recovery codes" in overview
        assert "Two-factor login: on" in overview
    with time_machine.travel(NOW + 2 * STEP, tick=False):
        assert twofactor.verify(editor, shown[0]).ok


def test_signing_in_takes_the_password_then_a_code_from_the_app(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        device, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        password_sign_in(client, editor)
        verify = location(client.get("/admin/dashboard/"))
        assert client.get(verify).status_code == 200
        signed_in = client.post(verify, {"code": app_code(device), "next": "/admin/dashboard/"})
        assert location(signed_in) == "/admin/dashboard/"
        assert client.get("/admin/dashboard/").status_code == 200


def test_a_recovery_code_signs_in_once_and_says_how_many_are_left(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        _, codes = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        password_sign_in(client, editor)
        response = client.post("/admin/2fa/verify/", {"code": codes[0]}, follow=True)
        assert response.status_code == 200
        assert "9 recovery code(s) left" in response.content.decode()
    with time_machine.travel(NOW + 2 * STEP, tick=False):
        again = Client()
        password_sign_in(again, editor)
        refused = again.post("/admin/2fa/verify/", {"code": codes[0]})
        assert refused.status_code == 200
        assert "That code is not right" in refused.content.decode()
        assert location(again.get("/admin/")).startswith("/admin/2fa/verify/")


def test_new_recovery_codes_are_shown_once_and_replace_the_old(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        device, old = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        password_sign_in(client, editor)
        client.post("/admin/2fa/verify/", {"code": app_code(device)})
        page = client.post("/admin/2fa/", {"recovery_codes": "1"}).content.decode()
        new = re.findall(r"<li><code>([a-z2-7]+)</code></li>", page)
        assert len(new) == twofactor.RECOVERY_CODE_COUNT and not set(new) & set(old)
    with time_machine.travel(NOW + 2 * STEP, tick=False):
        assert not twofactor.verify(editor, old[1]).ok
    # (A step later: the wrong code makes the next one wait a second.)
    with time_machine.travel(NOW + 3 * STEP, tick=False):
        assert twofactor.verify(editor, new[1]).ok


def test_an_unverified_session_cannot_make_recovery_codes(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        _, old = enrol(editor)
        client = Client()
        password_sign_in(client, editor)
        response = client.post("/admin/2fa/", {"recovery_codes": "1"})
        assert location(response).startswith("/admin/2fa/verify/")
    with time_machine.travel(NOW + STEP, tick=False):
        assert twofactor.verify(editor, old[0]).ok


def test_an_enrolled_person_cannot_enrol_a_second_app_without_a_code(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        enrol(editor)
        client = Client()
        password_sign_in(client, editor)
        assert location(client.get("/admin/2fa/setup/")).startswith("/admin/2fa/verify/")
        assert TOTPDevice.objects.filter(user=editor, confirmed=False).count() == 0


def test_a_next_address_elsewhere_is_not_followed(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        device, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        password_sign_in(client, editor)
        response = client.post(
            "/admin/2fa/verify/", {"code": app_code(device), "next": "https://evil.example/"}
        )
        assert location(response) == "/admin/"


def test_wrong_codes_count_as_failed_sign_ins_and_lock_the_person_out(
    editor: User, settings: Any
) -> None:
    with time_machine.travel(NOW, tick=False):
        device, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        assert location(password_sign_in(client, editor)) == "/admin/"
        for _ in range(settings.AXES_FAILURE_LIMIT - 1):
            response = client.post("/admin/2fa/verify/", {"code": wrong_code(device)})
            assert response.status_code == 200
        locked = client.post("/admin/2fa/verify/", {"code": wrong_code(device)})
        assert locked.status_code == 429
        assert "_auth_user_id" not in client.session  # signed out
        # The password alone no longer signs in from here, until the cool-off.
        assert password_sign_in(Client(), editor).status_code == 429


def test_signing_in_again_does_not_clear_the_wrong_codes(editor: User) -> None:
    """The password step clears axes' count on success; the app's own throttle does not
    forget, so a person who knows the password still cannot guess codes quickly."""
    with time_machine.travel(NOW, tick=False):
        device, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        password_sign_in(client, editor)
        for _ in range(3):
            client.post("/admin/2fa/verify/", {"code": wrong_code(device)})
        fresh = Client()
        password_sign_in(fresh, editor)
        waiting = fresh.post("/admin/2fa/verify/", {"code": app_code(device)})
        assert "Too many wrong codes in a row" in waiting.content.decode()
        assert location(fresh.get("/admin/")).startswith("/admin/2fa/verify/")


def test_an_admin_resets_a_persons_two_factor_and_it_is_logged(
    editor: User, admin_user: User
) -> None:
    with time_machine.travel(NOW, tick=False):
        enrol(editor)
        enrol(admin_user)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        password_sign_in(client, admin_user)
        client.post(
            "/admin/2fa/verify/", {"code": app_code(TOTPDevice.objects.get(user=admin_user))}
        )
        users = client.get("/admin/auth/user/").content.decode()
        assert "Two-factor login" in users
        response = client.post(
            "/admin/auth/user/",
            {"action": "reset_two_factor", "_selected_action": [editor.pk]},
            follow=True,
        )
        assert "Two-factor login reset for ed_editor" in response.content.decode()
    assert not twofactor.is_enrolled(editor)
    (entry,) = LogEntry.objects.filter(object_id=str(editor.pk), action_flag=CHANGE)
    assert entry.user == admin_user
    assert "Reset two-factor login" in entry.get_change_message()
    # At the next sign-in the editor enrols again before anything else.
    with time_machine.travel(NOW + 2 * STEP, tick=False):
        again = Client()
        password_sign_in(again, editor)
        assert location(again.get("/admin/")).startswith("/admin/2fa/setup/")


def test_an_editor_cannot_reset_anyones_two_factor(
    editor: User, second_editor: User, settings: Any
) -> None:
    settings.DESK_REQUIRE_2FA = False
    with time_machine.travel(NOW, tick=False):
        enrol(second_editor)
        response = client_for(editor).post(
            "/admin/auth/user/",
            {"action": "reset_two_factor", "_selected_action": [second_editor.pk]},
        )
        assert response.status_code == 403
        assert twofactor.is_enrolled(second_editor)


def test_a_reset_during_a_session_sends_an_editor_to_enrol(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        device, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        client = Client()
        password_sign_in(client, editor)
        twofactor.reset(editor)
        verify = location(client.get("/admin/"))
        assert location(client.get(verify)).startswith("/admin/2fa/setup/")
