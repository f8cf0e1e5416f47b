"""The desk's two-factor pages: enrol an authenticator app, sign in with a code, and the
person's own overview with their recovery codes (editorial.twofactor; docs/two-factor.md).

Every code typed wrong here also counts with django-axes as a failed sign-in of the
person from this address: enough of them lock the pair out exactly as wrong passwords
do, and the session is signed out.
"""

from __future__ import annotations

import logging
from typing import Any

import segno
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django import forms
from django.contrib import messages
from django.contrib.admin import site
from django.contrib.auth import logout
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.safestring import mark_safe
from django.views.decorators.cache import never_cache
from django_otp import login as otp_login
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from editorial import twofactor
from editorial.permissions import acting_user

logger = logging.getLogger(__name__)


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Code",
        max_length=64,
        strip=True,
        help_text="The six digits your authenticator app shows now.",
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "autofocus": True, "spellcheck": "false"}
        ),
    )


class SignInCodeForm(CodeForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["code"].help_text = (
            "The six digits your authenticator app shows now, or one of your recovery "
            "codes if you do not have the app with you (each works once)."
        )


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("admin:index")


def _with_next(name: str, next_url: str) -> str:
    return f"{reverse(name)}?{urlencode({'next': next_url})}"


def _context(request: HttpRequest, title: str, **extra: Any) -> dict[str, Any]:
    return {**site.each_context(request), "title": title, **extra}


def _wrong_code_message(result: twofactor.Verification) -> str:
    if result.wait_until is not None:
        seconds = max(1, int((result.wait_until - timezone.now()).total_seconds()) + 1)
        return (
            f"Too many wrong codes in a row: no code is checked for {seconds} more "
            "second(s). Wait, then type the code your app shows at that moment."
        )
    return (
        "That code is not right. Type the six digits your app shows now (if it keeps "
        "failing, check that your phone's clock is set automatically), or a recovery code "
        "you have not used."
    )


def _lockout(request: HttpRequest, credentials: dict[str, str]) -> HttpResponse:
    """django-axes' answer to a locked-out person (429), with the session signed out."""
    logout(request)
    response: HttpResponse = get_lockout_response(request, None, credentials)
    return response


def _count_failure(request: HttpRequest, credentials: dict[str, str]) -> HttpResponse | None:
    """Record a wrong code with django-axes; the lockout answer if that was one too many."""
    user_login_failed.send(sender=__name__, credentials=credentials, request=request)
    if getattr(request, "axes_locked_out", False):
        return _lockout(request, credentials)
    return None


@never_cache
def verify_view(request: HttpRequest) -> HttpResponse:
    """The second step of signing in: a code from the app, or a recovery code."""
    user = acting_user(request)
    next_url = _next_url(request)
    if user.is_verified():  # type: ignore[attr-defined]
        return HttpResponseRedirect(next_url)
    if not twofactor.is_enrolled(user):
        # Reset by an admin since this session began.
        twofactor.remember_enrolment(request, False)
        if twofactor.is_required(user):
            return HttpResponseRedirect(_with_next("desk:2fa-setup", next_url))
        return HttpResponseRedirect(next_url)
    credentials = {"username": user.get_username()}
    if AxesProxyHandler.is_locked(request, credentials):
        return _lockout(request, credentials)
    form = SignInCodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        result = twofactor.verify(user, form.cleaned_data["code"])
        if result.device is not None:
            otp_login(request, result.device)
            if isinstance(result.device, StaticDevice):
                left = twofactor.recovery_codes_left(user)
                messages.warning(
                    request,
                    f"You signed in with a recovery code; it cannot be used again. "
                    f"{left} recovery code(s) left: make new ones on your two-factor page.",
                )
            return HttpResponseRedirect(next_url)
        locked_out = _count_failure(request, credentials)
        if locked_out is not None:
            return locked_out
        form.add_error("code", _wrong_code_message(result))
    return TemplateResponse(
        request,
        "admin/twofactor/verify.html",
        _context(request, "Two-factor sign-in", form=form, next=next_url),
    )


def _qr_svg(url: str) -> str:
    qr = segno.make(url, error="m")
    return str(
        qr.svg_inline(
            scale=4,
            border=4,
            dark="black",
            light="white",
            title="QR code for your authenticator app",
        )
    )


@never_cache
def setup_view(request: HttpRequest) -> HttpResponse:
    """Enrol an authenticator app: its QR code or secret, then a code from it to confirm.

    Also how an enrolled person moves to a new phone: the old app keeps working until a
    code from the new one is confirmed."""
    user = acting_user(request)
    next_url = _next_url(request)
    if twofactor.is_enrolled(user) and not user.is_verified():  # type: ignore[attr-defined]
        return HttpResponseRedirect(_with_next("desk:2fa-verify", next_url))
    device = twofactor.pending_device(user)
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        credentials = {"username": user.get_username()}
        if AxesProxyHandler.is_locked(request, credentials):
            return _lockout(request, credentials)
        result = twofactor.confirm(device, form.cleaned_data["code"])
        if result.device is not None:
            confirmed = TOTPDevice.objects.get(pk=device.pk)
            otp_login(request, confirmed)
            twofactor.remember_enrolment(request, True)
            codes = twofactor.new_recovery_codes(user)
            logger.info("two-factor app enrolled", extra={"user_id": user.pk})
            return TemplateResponse(
                request,
                "admin/twofactor/recovery_codes.html",
                _context(
                    request,
                    "Two-factor login is on",
                    codes=codes,
                    next=next_url,
                    enrolled_now=True,
                ),
            )
        locked_out = _count_failure(request, credentials)
        if locked_out is not None:
            return locked_out
        form.add_error("code", _wrong_code_message(result))
    return TemplateResponse(
        request,
        "admin/twofactor/setup.html",
        _context(
            request,
            "Set up two-factor login",
            form=form,
            next=next_url,
            otpauth_url=device.config_url,
            secret=twofactor.secret_text(device),
            qr_svg=mark_safe(_qr_svg(device.config_url)),  # noqa: S308 (segno's own SVG)
            required=twofactor.is_required(user),
            replacing=twofactor.is_enrolled(user),
        ),
    )


@never_cache
def overview_view(request: HttpRequest) -> HttpResponse:
    """The person's two-factor page: whether it is on, and new recovery codes (shown once)."""
    user = acting_user(request)
    device = twofactor.app_device(user)
    if request.method == "POST" and "recovery_codes" in request.POST:
        if device is None:
            messages.error(request, "Set up an authenticator app first: recovery codes go with it.")
            return HttpResponseRedirect(reverse("desk:2fa-setup"))
        codes = twofactor.new_recovery_codes(user)
        logger.info("two-factor recovery codes replaced", extra={"user_id": user.pk})
        return TemplateResponse(
            request,
            "admin/twofactor/recovery_codes.html",
            _context(request, "New recovery codes", codes=codes, next=reverse("desk:2fa")),
        )
    enrolled_on = (
        date_format(timezone.localtime(device.created_at), "DATETIME_FORMAT")
        if device is not None and device.created_at is not None
        else None
    )
    return TemplateResponse(
        request,
        "admin/twofactor/overview.html",
        _context(
            request,
            "Two-factor login",
            device=device,
            enrolled_on=enrolled_on,
            codes_left=twofactor.recovery_codes_left(user),
            required=twofactor.is_required(user),
        ),
    )
