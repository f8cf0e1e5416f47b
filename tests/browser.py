"""Debian's chromium for browser tests, launched the one way this machine allows."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
# No background networking: the only network here is loopback.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread (pytest-django's advice).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def signed_in(browser: Any, live_server: Any, username: str, password: str | None = None) -> Any:
    """A page in a browser context of its own (cookies apart from every other user's),
    signed in through the admin's login form; the password is "pw-" and the username, as
    tests/personas.member gives it, unless another is named."""
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password or f"pw-{username}")
    with page.expect_navigation():
        page.click("input[type=submit]")
    return page
