"""Two-factor login in a real browser: an editor is sent to set up an app at their first
sign-in, confirms a code computed from the secret the page shows, saves the recovery
codes, signs out, and signs in again with the password and a code; axe-core finds no serious
accessibility problem on the two pages."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.contrib.auth.models import User
from django_otp.oath import TOTP, totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from editorial import twofactor
from tests.accessibility.test_axe_browser import serious_violations
from tests.browser import ARTIFACTS


def code_from(secret: str) -> str:
    """What an authenticator app given `secret` shows now."""
    return f"{totp(_key(secret)):06d}"


def next_code_after_the_last_one_taken(secret: str, user: User) -> str:
    """The code of the 30-second step after the one the desk last accepted.

    A code is good once, so signing in again at once needs the next step's code, as an app
    whose clock runs a little ahead shows it. Counted from the step the desk recorded, not
    from the test's clock: an enrolment code typed just before a step boundary teaches
    django-otp that this app runs one step behind, and "now plus one" is then two steps
    ahead of what the desk expects, outside its tolerance."""
    device = TOTPDevice.objects.get(user=user)
    clock = TOTP(_key(secret))
    clock.time = (device.last_t + 1) * clock.step
    return f"{clock.token():06d}"


def _key(secret: str) -> bytes:
    return base64.b32decode(secret.replace(" ", ""))


def password_step(page: Any, base: str, user: User) -> None:
    page.goto(f"{base}/admin/login/?next=/admin/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "pw-" + user.username)
    page.click("input[type=submit]")


@pytest.mark.browser
def test_an_editor_enrols_then_signs_in_with_a_code(
    live_server: Any, browser: Any, editor: User, settings: Any
) -> None:
    settings.DESK_REQUIRE_2FA = True
    base = live_server.url
    page = browser.new_context(viewport={"width": 1280, "height": 1400}).new_page()

    password_step(page, base, editor)
    page.wait_for_url(f"{base}/admin/2fa/setup/?next=%2Fadmin%2F")
    assert page.is_visible(".twofactor-qr svg")
    assert page.get_attribute("#twofactor-uri", "href").startswith("otpauth://totp/")
    secret = page.inner_text("#twofactor-secret")
    assert not serious_violations(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "twofactor-setup.png"), full_page=True)
    page.fill("#id_code", code_from(secret))
    page.click("#twofactor-form input[type=submit]")
    page.wait_for_selector("#recovery-codes")
    codes = page.locator("#recovery-codes li").all_inner_texts()
    assert len(codes) == twofactor.RECOVERY_CODE_COUNT
    assert twofactor.is_enrolled(editor)
    page.screenshot(path=str(ARTIFACTS / "twofactor-recovery-codes.png"), full_page=True)
    page.click("text=I have saved them: continue")
    page.wait_for_url(f"{base}/admin/")
    assert "Two-factor login: on" in page.text_content("#twofactor-link")

    page.click("#logout-form button")
    page.wait_for_url(f"{base}/admin/logout/")
    password_step(page, base, editor)
    page.wait_for_url(f"{base}/admin/2fa/verify/?next=%2Fadmin%2F")
    # A code is good once: the next step's code rather than waiting thirty seconds.
    assert not serious_violations(page)
    page.fill("#id_code", next_code_after_the_last_one_taken(secret, editor))
    page.screenshot(path=str(ARTIFACTS / "twofactor-verify.png"), full_page=True)
    page.click("#twofactor-form input[type=submit]")
    page.wait_for_url(f"{base}/admin/")
    assert page.is_visible("#content-main")
    assert "Two-factor login: on" in page.text_content("#twofactor-link")
