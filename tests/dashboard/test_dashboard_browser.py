"""The dashboard in a real browser: the chart draws, the table fallback opens."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from editorial.linkcheck import service
from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import CheckResult
from glossary.models import Source
from tests.browser import ARTIFACTS


@pytest.fixture
def browser_page(browser: Any) -> Any:
    return browser.new_page(viewport={"width": 1200, "height": 1600})


@pytest.mark.browser
def test_the_dashboard_draws_the_health_chart(
    live_server: Any, browser_page: Any, editor: User, make_source: Callable[..., Source]
) -> None:
    now = datetime.datetime.now(datetime.UTC)
    for i in range(6):
        source = make_source(title=f"Source {i}")
        Source.objects.filter(pk=source.pk).update(created_at=now - datetime.timedelta(days=90))
        for days in (80, 40, 30, 20):
            outcome = Outcome.BROKEN if i < 2 and days < 45 else Outcome.OK
            source.refresh_from_db()
            service.record(
                [(source, CheckResult(url=source.url, outcome=outcome))],
                None,
                now=now - datetime.timedelta(days=days),
            )
    client = Client()
    client.force_login(editor)
    browser_page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    browser_page.goto(f"{live_server.url}/admin/dashboard/")
    chart = browser_page.locator("svg[role=img]")
    assert chart.is_visible()
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300
    # Broken segments (the chart's red) appear in the later weeks.
    assert browser_page.locator('svg rect[fill="#D55E00"]').count() >= 1
    browser_page.get_by_text("The numbers as a table").click()
    assert browser_page.locator("table.chart-table").is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    browser_page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)
