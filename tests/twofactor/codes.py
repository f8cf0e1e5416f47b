"""Real codes, computed as an authenticator app computes them (RFC 6238, django-otp's own
implementation), and signing in the way a person does."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

# A Monday morning; each test moves on from here in whole 30-second steps.
NOW = datetime.datetime(2026, 11, 30, 14, 0, tzinfo=datetime.UTC)
STEP = datetime.timedelta(seconds=30)


def app_code(device: TOTPDevice) -> str:
    """The six digits the app shows now (time as time_machine has it)."""
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


def wrong_code(device: TOTPDevice) -> str:
    right = int(app_code(device))
    return f"{(right + 500_000) % 1_000_000:06d}"


def password_sign_in(client: Client, user: User, **extra: Any) -> Any:
    """The admin's password step, as the login form posts it."""
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": user.username, "password": "pw-" + user.username},
        **extra,
    )


def enrol(user: User) -> tuple[TOTPDevice, list[str]]:
    """An app confirmed with a real code, and recovery codes, as the setup page makes them."""
    from editorial import twofactor

    device = twofactor.pending_device(user)
    assert twofactor.confirm(device, app_code(device)).ok
    device.refresh_from_db()
    return device, twofactor.new_recovery_codes(user)
