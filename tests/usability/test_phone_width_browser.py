"""The desk at a phone's width (390 px) in a real browser: buttons and chart labels read."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from demo.content import load_demo
from glossary.models import Entry
from tests.browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def signed_in_page(browser: Any, live_server: Any) -> Any:
    user = User.objects.create_superuser("chief", "chief@example.com", "pw-chief-123")
    client = Client()
    client.force_login(user)
    page = browser.new_page(viewport=PHONE)
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    return page


def test_the_history_button_fits_a_phone_screen(browser: Any, live_server: Any) -> None:
    load_demo()
    page = signed_in_page(browser, live_server)
    entry = Entry.objects.get(slug="interconnect")
    page.goto(f"{live_server.url}/admin/glossary/entry/{entry.pk}/change/")
    button = page.get_by_role("link", name="History and versions")
    box = button.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # All its words show: nothing is cut off inside the button.
    assert button.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "history-button-390.png"))


def test_the_dashboard_chart_labels_read_on_a_phone_screen(browser: Any, live_server: Any) -> None:
    load_demo()
    page = signed_in_page(browser, live_server)
    page.goto(f"{live_server.url}/admin/dashboard/")
    labels = page.locator("#source-health svg text")
    assert labels.count() > 5
    boxes = [labels.nth(i).bounding_box() for i in range(labels.count())]
    assert all(b is not None for b in boxes)
    # Labels are drawn at a readable size, not the chart shrunk to the screen's width...
    assert min(b["height"] for b in boxes) >= 10
    # ...and the week labels along the bottom do not run into each other.
    bottom = max(b["y"] for b in boxes)
    weeks = sorted((b for b in boxes if abs(b["y"] - bottom) < 1), key=lambda b: b["x"])
    assert len(weeks) > 3
    assert all(a["x"] + a["width"] <= b["x"] for a, b in zip(weeks, weeks[1:], strict=False))
    # The page itself does not scroll sideways: the chart scrolls in its own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-chart-390.png"), full_page=True)
