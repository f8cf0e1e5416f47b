"""Response headers that limit what a page may load, and the client's address.

The Content-Security-Policy allows scripts only from this site: no inline
script, no ``eval``, no plugins, no framing, forms post only here. The public
pages carry no script at all (JSON-LD is data, which CSP does not block), and
the Django admin 5.2 loads every script from static files and passes data in
``data-`` attributes or ``json_script`` blocks, so both satisfy it.

Styles allow ``'unsafe-inline'``: the public base template has a small
``<style>`` block and the admin writes style attributes (its changelist
template, jQuery and Select2 widgets). Injected CSS cannot run code, and
Markdown bodies are sanitised before they are stored, so the cost is small
next to breaking the admin's widgets.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping

from django.conf import settings
from django.http import HttpRequest, HttpResponse

DEFAULT_CSP: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    # Timestamps play the episode's audio where the show hosts it (glossary/static/
    # glossary/listen.js); media cannot run code.
    "media-src": ["'self'", "https:"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}

# Features no page of ours uses; denying them limits what injected content could ask for.
DEFAULT_PERMISSIONS_POLICY = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), "
    "interest-cohort=(), browsing-topics=()"
)


def build_policy(directives: Mapping[str, list[str]]) -> str:
    return "; ".join(f"{name} {' '.join(values)}".strip() for name, values in directives.items())


class SecurityHeadersMiddleware:
    """Add Content-Security-Policy and Permissions-Policy unless a view set its own.

    Django's SecurityMiddleware already sends HSTS, nosniff, Referrer-Policy
    and Cross-Origin-Opener-Policy; XFrameOptionsMiddleware sends
    X-Frame-Options for browsers that predate ``frame-ancestors``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        directives = getattr(settings, "CONTENT_SECURITY_POLICY", None) or DEFAULT_CSP
        self.policy = build_policy(directives)
        self.report_only = bool(getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", False))
        self.permissions = getattr(settings, "PERMISSIONS_POLICY", DEFAULT_PERMISSIONS_POLICY)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        header = (
            "Content-Security-Policy-Report-Only" if self.report_only else "Content-Security-Policy"
        )
        if header not in response:
            response[header] = self.policy
        if self.permissions and "Permissions-Policy" not in response:
            response["Permissions-Policy"] = self.permissions
        return response


def client_ip(request: HttpRequest) -> str | None:
    """The client's address as the trusted proxies saw it (used by django-axes).

    With TRUSTED_PROXY_COUNT = n, the n-th address from the right of
    X-Forwarded-For is the client; a client can prepend anything to that header,
    so addresses further left are never trusted. With 0 (no proxy), REMOTE_ADDR.
    """
    count = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    remote = request.META.get("REMOTE_ADDR")
    if count <= 0:
        return remote
    forwarded = [
        part.strip()
        for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if part.strip()
    ]
    if len(forwarded) < count:
        return remote
    candidate = forwarded[-count]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote
