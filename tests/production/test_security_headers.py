"""Every page sends a Content-Security-Policy it satisfies, and the other security headers.

The policy forbids inline and third-party script. These tests read the HTML the
public site and the admin actually serve and find nothing the policy would
block; test_csp_browser.py asks a real browser the same question.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from glossary.models import Entry

# Script types that browsers treat as data, which CSP does not block.
DATA_SCRIPT_TYPES = {"application/json", "application/ld+json"}


class InlineCodeFinder(HTMLParser):
    """Collect what a `script-src 'self'` policy would block in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self._in_script: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...> inline event handler")
            if name in ("href", "src", "action", "formaction") and (
                value or ""
            ).strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}={value!r}> javascript: URL")
        if tag == "script":
            src = attributes.get("src")
            if src and src.startswith(("http://", "https://", "//")):
                self.problems.append(f"<script src={src!r}> from another origin")
            self._in_script = attributes

    def handle_data(self, data: str) -> None:
        script = self._in_script
        if script is None or script.get("src") or not data.strip():
            return
        if (script.get("type") or "").lower() not in DATA_SCRIPT_TYPES:
            self.problems.append(f"inline <script>: {data.strip()[:60]!r}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None


def blocked_by_policy(html: str) -> list[str]:
    finder = InlineCodeFinder()
    finder.feed(html)
    return finder.problems


def test_the_finder_spots_what_the_policy_would_block() -> None:
    html = (
        '<script>alert(1)</script><a href="javascript:go()">x</a><b onclick="x()">y</b>'
        '<script src="https://cdn.example/x.js"></script>'
        '<script type="application/ld+json">{"@type": "DefinedTerm"}</script>'
        '<script src="/static/admin/js/core.js"></script>'
    )
    assert len(blocked_by_policy(html)) == 4


@pytest.fixture
def admin_client(superuser: User) -> Client:
    client = Client()
    client.force_login(superuser)
    return client


def public_paths(demo: Any) -> list[str]:
    entry = Entry.objects.published().select_related("live_version").first()
    assert entry is not None, "the demo publishes an entry"
    return ["/", entry.get_absolute_url(), "/search/?q=interconnect", "/tags/", "/no-such-page/"]


def admin_paths() -> list[str]:
    entry = Entry.objects.first()
    assert entry is not None
    return [
        "/admin/",
        "/admin/glossary/entry/",
        f"/admin/glossary/entry/{entry.pk}/change/",
        "/admin/glossary/entry/add/",
        "/admin/glossary/source/",
        "/admin/dashboard/",
    ]


def assert_security_headers(response: Any) -> None:
    policy = response["Content-Security-Policy"]
    directives = dict(
        (part.split(" ", 1) + [""])[:2] for part in (p.strip() for p in policy.split(";"))
    )
    assert directives["script-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["base-uri"] == "'self'"
    assert directives["form-action"] == "'self'"
    assert "unsafe-eval" not in policy
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"]


def test_public_pages_send_the_policy_and_satisfy_it(client: Client, demo: Any) -> None:
    for path in public_paths(demo):
        response = client.get(path)
        assert response.status_code in (200, 404), path
        assert_security_headers(response)
        assert blocked_by_policy(response.content.decode()) == [], path


def test_admin_pages_send_the_policy_and_satisfy_it(admin_client: Client, demo: Any) -> None:
    for path in [*admin_paths(), "/admin/login/"]:
        response = admin_client.get(path)
        assert response.status_code in (200, 302), path
        assert_security_headers(response)
        assert blocked_by_policy(response.content.decode()) == [], path


def test_the_admin_login_page_satisfies_the_policy_for_strangers(client: Client, db: Any) -> None:
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert_security_headers(response)
    assert blocked_by_policy(response.content.decode()) == []


def test_a_view_that_sets_its_own_policy_keeps_it(rf: Any, settings: Any) -> None:
    from django.http import HttpResponse

    from config.security import SecurityHeadersMiddleware

    def view(request: Any) -> HttpResponse:
        response = HttpResponse("embed")
        response["Content-Security-Policy"] = "frame-ancestors https://partner.example"
        return response

    response = SecurityHeadersMiddleware(view)(rf.get("/"))
    assert response["Content-Security-Policy"] == "frame-ancestors https://partner.example"


def test_report_only_mode_sends_the_policy_without_enforcing_it(rf: Any, settings: Any) -> None:
    from django.http import HttpResponse

    from config.security import SecurityHeadersMiddleware

    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = True
    response = SecurityHeadersMiddleware(lambda request: HttpResponse("x"))(rf.get("/"))
    assert "Content-Security-Policy" not in response
    assert "script-src 'self'" in response["Content-Security-Policy-Report-Only"]
