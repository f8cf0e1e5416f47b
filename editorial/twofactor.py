"""Two-factor sign-in for the desk: an authenticator app (TOTP) and recovery codes.

django-otp keeps the devices: each person has at most one confirmed `TOTPDevice`
(the app, enrolled by scanning a QR code or typing its secret, active only once a
code from it is confirmed) and one `StaticDevice` holding single-use recovery codes.
Both throttle wrong codes themselves (1, 2, 4, 8… seconds between tries, stored on the
device), so the password step, which clears django-axes' count on success, cannot be
used to reset the guessing of codes; every wrong code also counts with axes as a failed
sign-in (editorial.admin.twofactor).

A session is *verified* once a code from one of the person's devices was accepted in it
(`django_otp.login`). Once enrolled, a person must verify in every session to use the
desk, whatever the setting; `DESK_REQUIRE_2FA` makes enrolment itself compulsory for
editors and admins (`is_required`). docs/two-factor.md says it for the desk's users.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.contrib.auth.signals import user_logged_in
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import urlencode
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

APP_DEVICE_NAME = "Authenticator app"
RECOVERY_DEVICE_NAME = "Recovery codes"
RECOVERY_CODE_COUNT = 10
# Whether the session's person has a confirmed app, remembered at sign-in so that a desk
# page costs no query for it (the pages pin their query counts).
ENROLLED_SESSION_KEY = "desk_2fa_enrolled"
# The desk: every page here needs a verified session once the person is enrolled.
DESK_PREFIXES = ("/admin/", "/preview/")

_SEPARATORS = re.compile(r"[\s-]+")


def is_required(user: User) -> bool:
    """Whether `user` must enrol before using the desk: editors and admins (anyone who may
    publish or manage accounts) while DESK_REQUIRE_2FA is on."""
    if not settings.DESK_REQUIRE_2FA:
        return False
    return bool(
        user.is_superuser
        or user.has_perm("editorial.publish_entry")
        or user.has_perm("auth.change_user")
    )


def app_device(user: User) -> TOTPDevice | None:
    """The person's confirmed authenticator app, if they enrolled one."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


def is_enrolled(user: User) -> bool:
    return bool(TOTPDevice.objects.filter(user=user, confirmed=True).exists())


def pending_device(user: User) -> TOTPDevice:
    """The app being enrolled: the same secret on every visit to the page until it is
    confirmed, so a person who scanned it and came back is not handed a new one."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name=APP_DEVICE_NAME, confirmed=False)
    return device


def secret_text(device: TOTPDevice) -> str:
    """The secret as an authenticator app asks for it when typed: base32, in groups of four."""
    secret = device.config_url.split("secret=", 1)[1].split("&", 1)[0]
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def normalise(code: str) -> str:
    """A code as typed, without the spaces and dashes people add, in lower case."""
    return _SEPARATORS.sub("", code).lower()


def looks_like_app_code(code: str) -> bool:
    return len(code) == 6 and code.isascii() and code.isdigit()


@dataclass(frozen=True)
class Verification:
    """What checking one code found: the device that took it, or why none did."""

    device: Device | None = None
    # Set when too many wrong codes came in a row: no code is checked before then.
    wait_until: datetime.datetime | None = None

    @property
    def ok(self) -> bool:
        return self.device is not None


def _check(devices: Any, code: str) -> Verification:
    for device in devices:
        allowed, data = device.verify_is_allowed()
        if not allowed:
            return Verification(wait_until=(data or {}).get("locked_until"))
        if device.verify_token(code):
            return Verification(device=device)
    return Verification()


def verify(user: User, code: str) -> Verification:
    """Check a code from the person's app or one of their recovery codes (used up if right).

    Rows are locked while checking, so two requests cannot both spend one recovery code
    or one app code (django-otp refuses an app code it accepted before)."""
    code = normalise(code)
    if not code:
        return Verification()
    with transaction.atomic():
        if looks_like_app_code(code):
            devices = TOTPDevice.objects.filter(user=user, confirmed=True)
        else:
            devices = StaticDevice.objects.filter(user=user, confirmed=True)
        return _check(devices.select_for_update(), code)


def confirm(device: TOTPDevice, code: str) -> Verification:
    """Make a pending app active once a code from it is right; other pending apps go."""
    with transaction.atomic():
        locked = TOTPDevice.objects.select_for_update().get(pk=device.pk)
        result = _check([locked], normalise(code))
        if result.ok:
            locked.confirmed = True
            locked.save(update_fields=["confirmed"])
            TOTPDevice.objects.filter(user=locked.user).exclude(pk=locked.pk).delete()
        return result


def new_recovery_codes(user: User) -> list[str]:
    """Replace the person's recovery codes with RECOVERY_CODE_COUNT new ones.

    The codes are returned to be shown once; the old ones stop working at once."""
    with transaction.atomic():
        device, _ = StaticDevice.objects.select_for_update().get_or_create(
            user=user, defaults={"name": RECOVERY_DEVICE_NAME, "confirmed": True}
        )
        device.token_set.all().delete()
        codes = [StaticToken.random_token() for _ in range(RECOVERY_CODE_COUNT)]
        StaticToken.objects.bulk_create(StaticToken(device=device, token=c) for c in codes)
        device.throttle_reset()
    return codes


def recovery_codes_left(user: User) -> int:
    return int(StaticToken.objects.filter(device__user=user, device__confirmed=True).count())


def reset(user: User) -> int:
    """Remove the person's app and recovery codes: they enrol again at their next sign-in
    (before anything else, where it is required). Returns how many devices went."""
    removed = 0
    with transaction.atomic():
        for model in (TOTPDevice, StaticDevice):
            devices = model.objects.filter(user=user)
            removed += devices.count()
            devices.delete()
    return removed


def enrolled_in_session(request: HttpRequest, user: User) -> bool:
    enrolled = request.session.get(ENROLLED_SESSION_KEY)
    if enrolled is None:
        # A session from before sign-in remembered it.
        enrolled = is_enrolled(user)
        request.session[ENROLLED_SESSION_KEY] = enrolled
    return bool(enrolled)


def remember_enrolment(request: HttpRequest, enrolled: bool) -> None:
    request.session[ENROLLED_SESSION_KEY] = enrolled


@receiver(user_logged_in, dispatch_uid="editorial.twofactor.remember_enrolment")
def _remember_enrolment_at_sign_in(
    sender: Any, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any
) -> None:
    if request is not None and hasattr(request, "session") and isinstance(user, User):
        if user.is_staff:
            remember_enrolment(request, is_enrolled(user))


def _desk_path(request: HttpRequest) -> bool:
    return request.path_info.startswith(DESK_PREFIXES)


def _exempt_paths() -> set[str]:
    """The pages an unverified session may open: signing in, the two-factor pages
    themselves, and signing out."""
    return {
        reverse("admin:login"),
        reverse("admin:logout"),
        reverse("admin:jsi18n"),
        reverse("desk:2fa-verify"),
        reverse("desk:2fa-setup"),
    }


class RequireTwoFactorMiddleware:
    """Sends a desk user whose session is not verified to the code page, or, where
    enrolment is required and they have no app, to enrolment, before any other desk
    page: typing an admin address straight away leads there too.

    After django_otp's OTPMiddleware, which tells whether the session is verified."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        redirect = self._redirect(request)
        if redirect is not None:
            return redirect
        return self.get_response(request)

    def _redirect(self, request: HttpRequest) -> HttpResponse | None:
        user = request.user
        if not user.is_authenticated:
            return None
        if not user.is_staff or not _desk_path(request) or user.is_verified():  # type: ignore[attr-defined]
            return None
        if request.path_info in _exempt_paths():
            return None
        if enrolled_in_session(request, user):
            target = "desk:2fa-verify"
        elif is_required(user):
            target = "desk:2fa-setup"
        else:
            return None
        query = urlencode({"next": request.get_full_path()})
        return HttpResponseRedirect(f"{reverse(target)}?{query}")
