"""Deployment checks: `manage.py check --deploy` fails on an unsafe production setup.

Django's own deploy checks cover HSTS, cookies, the SSL redirect and the
secret key's strength. These add what a production Glossary Desk needs on top:
PostgreSQL, Redis for the cache and the Celery broker, explicit hosts, a mail
server for the notifications, no SSRF allowance for the link checker, an
enforced Content-Security-Policy, a second pair of eyes on every publish and two-factor
login for editors and admins. The
migrate service runs ``check --deploy --fail-level WARNING`` first, so a deploy
with any of these problems stops before it touches the database.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured

from glossary.throttle import parse_rate

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"


@register(Tags.security, deploy=True)
def check_production_services(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    if settings.DEBUG:
        return []
    return [*_missing_services(), *_unsafe_settings()]


def _missing_services() -> list[CheckMessage]:
    """What production cannot run without: each an error that stops the deploy."""
    messages: list[CheckMessage] = []
    if settings.DATABASES["default"]["ENGINE"] != settings.POSTGRESQL_ENGINE:
        messages.append(
            Error(
                "Production needs PostgreSQL; DATABASE_URL names another database.",
                hint="Set DATABASE_URL=postgres://user:password@host:5432/name.",
                id="glossary.E001",
            )
        )
    if not getattr(settings, "REDIS_URL", ""):
        messages.append(
            Error(
                "Production needs Redis for the cache and the Celery broker; REDIS_URL is unset.",
                hint="Set REDIS_URL=redis://host:6379/0.",
                id="glossary.E002",
            )
        )
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        messages.append(
            Error(
                "CELERY_TASK_ALWAYS_EAGER is on: link checks would run inside web requests.",
                hint="Unset CELERY_TASK_ALWAYS_EAGER so tasks go to the workers.",
                id="glossary.E003",
            )
        )
    if not os.environ.get("ALLOWED_HOSTS"):
        messages.append(
            Error(
                "ALLOWED_HOSTS is not set, so the development hosts are in use.",
                hint="Set ALLOWED_HOSTS to the public host name(s), comma-separated.",
                id="glossary.E004",
            )
        )
    if (
        settings.EMAIL_BACKEND == SMTP_BACKEND
        and not os.environ.get("EMAIL_HOST", "").strip()
        and settings.NOTIFY_DEFAULT_DELIVERY != "off"
    ):
        messages.append(
            Error(
                "Email notifications are on (NOTIFY_DEFAULT_DELIVERY="
                f"{settings.NOTIFY_DEFAULT_DELIVERY}) but EMAIL_HOST is unset: every email "
                "would go to a mail server on localhost, where none listens, and fail.",
                hint="Set EMAIL_HOST (with EMAIL_PORT, EMAIL_HOST_USER and "
                "EMAIL_HOST_PASSWORD) to your SMTP server, or NOTIFY_DEFAULT_DELIVERY=off for "
                "a desk that emails nobody who has not asked (docs/notifications.md).",
                id="glossary.E006",
            )
        )
    return messages


def _unsafe_settings() -> list[CheckMessage]:
    """Settings production runs with but should not: each a warning, silenced only on
    purpose."""
    messages: list[CheckMessage] = []
    if not settings.CSRF_TRUSTED_ORIGINS:
        messages.append(
            Warning(
                "CSRF_TRUSTED_ORIGINS is empty; admin forms posted through the HTTPS proxy "
                "will be refused.",
                hint="Set SITE_URL=https://your.host (it is trusted) or CSRF_TRUSTED_ORIGINS.",
                id="glossary.W001",
            )
        )
    if "*" in settings.ALLOWED_HOSTS:
        messages.append(
            Warning(
                "ALLOWED_HOSTS contains '*': the site answers for any Host header, so links "
                "in password-reset mails and absolute URLs can be made to point elsewhere.",
                hint="List the public host name(s) in ALLOWED_HOSTS, comma-separated.",
                id="glossary.W003",
            )
        )
    if getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", False):
        messages.append(
            Warning(
                "CONTENT_SECURITY_POLICY_REPORT_ONLY is on: browsers only report what the "
                "Content-Security-Policy would block and run injected scripts anyway.",
                hint="Unset CONTENT_SECURITY_POLICY_REPORT_ONLY once the policy is tested.",
                id="glossary.W004",
            )
        )
    if getattr(settings, "WORKFLOW_ALLOW_SELF_APPROVAL", False):
        messages.append(
            Warning(
                "WORKFLOW_ALLOW_SELF_APPROVAL is on: a writer can approve and publish their "
                "own change, with nobody else reading it first.",
                hint="Unset WORKFLOW_ALLOW_SELF_APPROVAL, or silence glossary.W005 if a "
                "one-person desk is deliberate.",
                id="glossary.W005",
            )
        )
    redis_url = getattr(settings, "REDIS_URL", "")
    if redis_url and getattr(settings, "CACHE_REDIS_URL", "") == redis_url:
        messages.append(
            Warning(
                "The page cache shares the broker's Redis (CACHE_REDIS_URL is REDIS_URL): "
                "pages filling its memory can evict or refuse queued link checks.",
                hint="Point CACHE_REDIS_URL at a Redis of its own with maxmemory and "
                "maxmemory-policy allkeys-lru (docker-compose.yml's `cache` service).",
                id="glossary.W006",
            )
        )
    if not getattr(settings, "DESK_REQUIRE_2FA", True):
        messages.append(
            Warning(
                "DESK_REQUIRE_2FA is off: editors and admins can use the desk, publish and "
                "manage accounts with a password alone.",
                hint="Unset DESK_REQUIRE_2FA (it is on in production) so they must set up "
                "an authenticator app (docs/two-factor.md).",
                id="glossary.W007",
            )
        )
    if getattr(settings, "LINKCHECK_ALLOW_PRIVATE", []):
        messages.append(
            Warning(
                "LINKCHECK_ALLOW_PRIVATE lets the link checker fetch private addresses.",
                hint="Leave LINKCHECK_ALLOW_PRIVATE empty in production (it exists for tests).",
                id="glossary.W002",
            )
        )
    return messages


@register()
def check_rate_limits(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """A limit that cannot be read stops the server at start, not a reader's request."""
    errors: list[CheckMessage] = []
    for name in ("PUBLIC_SEARCH_RATE_LIMIT", "PUBLIC_API_RATE_LIMIT"):
        rate = getattr(settings, name)
        if not rate:
            continue
        try:
            parse_rate(rate)
        except ImproperlyConfigured as exc:
            errors.append(Error(f"{name}: {exc}", id="glossary.E005"))
    return errors
