"""A real browser enforces our Content-Security-Policy on the public site and the admin
and reports no violation; an injected inline script is blocked."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from glossary.models import Entry
from tests.browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Collected by the page itself: CSP violations fire `securitypolicyviolation`.
LISTEN = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', e => {
  window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline'));
});
"""


@pytest.fixture
def page(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1200, "height": 1400})
    context.add_init_script(LISTEN)
    page = context.new_page()
    page.console_messages: list[str] = []  # type: ignore[misc]
    page.on("console", lambda message: page.console_messages.append(message.text))
    return page


def violations(page: Any) -> list[str]:
    reported = page.evaluate("window.__violations")
    in_console = [m for m in page.console_messages if "Content Security Policy" in m]
    return [*reported, *in_console]


def visit(page: Any, url: str) -> list[str]:
    page.console_messages.clear()
    response = page.goto(url, wait_until="load")
    assert response is not None and response.status < 500, url
    assert "script-src 'self'" in (response.header_value("content-security-policy") or "")
    return violations(page)


def test_public_pages_and_the_admin_run_under_the_policy_without_violations(
    live_server: Any, page: Any, superuser: User
) -> None:
    from demo.content import load_demo

    load_demo()
    entry = Entry.objects.published().first()
    assert entry is not None
    public = ["/", entry.get_absolute_url(), "/search/?q=interconnect", "/admin/login/"]
    for path in public:
        assert visit(page, live_server.url + path) == [], path

    client = Client()
    client.force_login(superuser)
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    admin = [
        "/admin/",
        "/admin/glossary/entry/",
        f"/admin/glossary/entry/{entry.pk}/change/",
        "/admin/glossary/entry/add/",
        "/admin/dashboard/",
    ]
    for path in admin:
        assert visit(page, live_server.url + path) == [], path
    # The admin's own scripts ran: the slug is filled in from the term as it is typed
    # (prepopulate.js, loaded from static files).
    page.goto(live_server.url + "/admin/glossary/entry/add/")
    page.locator("#id_term").press_sequentially("Scale up")
    assert page.input_value("#id_slug") == "scale-up"
    assert violations(page) == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "csp-admin-add-entry.png"))


def test_an_injected_inline_script_is_blocked(live_server: Any, page: Any) -> None:
    def inject(route: Any) -> None:
        response = route.fetch()
        body = response.text().replace("</body>", "<script>window.__ran = true;</script></body>")
        route.fulfill(response=response, body=body)

    page.route(f"{live_server.url}/", inject)
    page.goto(f"{live_server.url}/")
    assert page.evaluate("window.__ran === undefined")
    assert any(v.startswith("script-src") for v in page.evaluate("window.__violations"))
