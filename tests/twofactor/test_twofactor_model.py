"""editorial.twofactor: enrolment confirmed by a real code, recovery codes that work once,
reset, and who must enrol."""

from __future__ import annotations

from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from editorial import twofactor
from tests.twofactor.codes import NOW, STEP, app_code, enrol, wrong_code


@pytest.fixture(autouse=True)
def required(settings: Any) -> None:
    settings.DESK_REQUIRE_2FA = True


@time_machine.travel(NOW, tick=False)
def test_an_app_is_not_active_until_a_code_from_it_is_confirmed(editor: User) -> None:
    device = twofactor.pending_device(editor)
    assert not twofactor.is_enrolled(editor)
    # The same secret on every visit until confirmed: a scanned code stays good.
    assert twofactor.pending_device(editor).pk == device.pk
    assert twofactor.confirm(device, app_code(device)).ok
    assert twofactor.is_enrolled(editor)


@time_machine.travel(NOW, tick=False)
def test_a_wrong_code_does_not_confirm_the_app(editor: User) -> None:
    device = twofactor.pending_device(editor)
    assert not twofactor.confirm(device, wrong_code(device)).ok
    assert not twofactor.is_enrolled(editor)


@time_machine.travel(NOW, tick=False)
def test_the_secret_as_text_is_the_otpauth_uri_secret_in_groups(editor: User) -> None:
    device = twofactor.pending_device(editor)
    text = twofactor.secret_text(device)
    assert text.replace(" ", "") in device.config_url
    assert device.config_url.startswith("otpauth://totp/Glossary%20Desk%3Aed_editor?")
    assert all(len(group) == 4 for group in text.split()[:-1])


def test_confirming_a_new_app_replaces_the_old_one(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        old, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        new = twofactor.pending_device(editor)
        assert new.pk != old.pk
        # Until confirmed, the old app still signs in.
        assert twofactor.verify(editor, app_code(old)).ok
    with time_machine.travel(NOW + 2 * STEP, tick=False):
        assert twofactor.confirm(new, app_code(new)).ok
    assert list(TOTPDevice.objects.filter(user=editor).values_list("pk", flat=True)) == [new.pk]


def test_an_app_code_signs_in_once(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        device, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        code = app_code(device)
        assert twofactor.verify(editor, code).device == device
        assert not twofactor.verify(editor, code).ok


@time_machine.travel(NOW, tick=False)
def test_a_recovery_code_signs_in_once(editor: User) -> None:
    _, codes = enrol(editor)
    assert len(codes) == twofactor.RECOVERY_CODE_COUNT == len(set(codes))
    result = twofactor.verify(editor, codes[0])
    assert isinstance(result.device, StaticDevice)
    assert twofactor.recovery_codes_left(editor) == twofactor.RECOVERY_CODE_COUNT - 1
    with time_machine.travel(NOW + STEP, tick=False):
        assert not twofactor.verify(editor, codes[0]).ok


@time_machine.travel(NOW, tick=False)
def test_a_recovery_code_is_read_as_people_type_it(editor: User) -> None:
    _, codes = enrol(editor)
    typed = f" {codes[1][:4].upper()}-{codes[1][4:].upper()} "
    assert twofactor.verify(editor, typed).ok


def test_new_recovery_codes_stop_the_old_ones(editor: User) -> None:
    with time_machine.travel(NOW, tick=False):
        _, old = enrol(editor)
        new = twofactor.new_recovery_codes(editor)
        assert not set(old) & set(new)
    with time_machine.travel(NOW + STEP, tick=False):
        assert not twofactor.verify(editor, old[0]).ok
    with time_machine.travel(NOW + 2 * STEP, tick=False):
        assert twofactor.verify(editor, new[0]).ok


def test_wrong_codes_in_a_row_make_even_the_right_one_wait(editor: User) -> None:
    """django-otp's throttle, kept on the device: 1, 2, 4… seconds after each wrong code."""
    with time_machine.travel(NOW, tick=False):
        device, _ = enrol(editor)
    with time_machine.travel(NOW + STEP, tick=False):
        for _ in range(3):
            assert not twofactor.verify(editor, wrong_code(device)).ok
        waiting = twofactor.verify(editor, app_code(device))
        assert not waiting.ok and waiting.wait_until is not None
    with time_machine.travel(waiting.wait_until + STEP, tick=False):
        assert twofactor.verify(editor, app_code(device)).ok


@time_machine.travel(NOW, tick=False)
def test_reset_removes_the_app_and_the_recovery_codes(editor: User) -> None:
    _, codes = enrol(editor)
    assert twofactor.reset(editor) == 2
    assert not twofactor.is_enrolled(editor)
    assert not twofactor.verify(editor, codes[0]).ok
    assert twofactor.reset(editor) == 0


def test_editors_and_admins_must_enrol_writers_and_fact_checkers_may(
    personas: dict[str, User | None], superuser: User, settings: Any
) -> None:
    must = {name for name, user in personas.items() if user and twofactor.is_required(user)}
    assert must == {"editor", "admin"}
    assert twofactor.is_required(superuser)
    settings.DESK_REQUIRE_2FA = False
    assert not any(twofactor.is_required(user) for user in personas.values() if user)
