"""Accessibility, measured: axe-core in Debian's chromium on every public page type and the
main admin pages. Zero serious or critical violations.

axe-core comes bundled with axe-playwright-python (injected into the page through the
DevTools protocol, so the site's CSP does not stand in its way). A failure prints each
violation's rule, impact, help text and the first offending elements.
"""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User

from demo.content import load_demo
from glossary.models import Entry, Source

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PUBLIC_PAGES = [
    "/",
    "/glossary/interconnect/",
    "/episodes/",
    "/episodes/demo-show/3/44/",
    "/people/",
    "/people/jeetu-patel/",
    "/organisations/",
    "/organisations/cisco/",
    "/tags/",
    "/tags/networking/",
    "/search/?q=interconnect",
    "/search/?q=interconect",
    "/glossary/no-such-term/",
]

SERIOUS = {"serious", "critical"}


def serious_violations(page: Any) -> list[str]:
    results = Axe().run(page)
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] in SERIOUS:
            targets = [", ".join(node["target"]) for node in violation["nodes"][:3]]
            found.append(
                f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}"
            )
    return found


def report(problems: dict[str, list[str]]) -> str:
    return "\n".join(f"{path}: {v}" for path, found in problems.items() for v in found)


@pytest.fixture
def site(live_server: Any) -> str:
    load_demo()
    return live_server.url


def test_public_pages_have_no_serious_accessibility_violations(browser, site):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = {}
    for path in PUBLIC_PAGES:
        page.goto(f"{site}{path}")
        if found := serious_violations(page):
            problems[path] = found
    assert problems == {}, report(problems)


def test_the_check_finds_a_violation_when_one_is_there(browser, site):
    # The measurement itself works: an image without a text alternative inside a link
    # is a serious violation axe must report.
    page = browser.new_page()
    page.goto(f"{site}/")
    page.evaluate(
        "document.querySelector('main').insertAdjacentHTML('beforeend',"
        ' \'<a href="/"><img src="/x.png"></a>\')'
    )
    assert any(v.startswith("link-name") or "image-alt" in v for v in serious_violations(page))


def test_main_admin_pages_have_no_serious_accessibility_violations(browser, site):
    User.objects.create_superuser("chief", "chief@example.com", "pw-chief-123")
    entry = Entry.objects.get(slug="interconnect")
    source = Source.objects.order_by("pk").first()
    assert source is not None
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    problems = {}
    page.goto(f"{site}/admin/login/")
    if found := serious_violations(page):
        problems["/admin/login/"] = found
    page.fill("#id_username", "chief")
    page.fill("#id_password", "pw-chief-123")
    with page.expect_navigation():
        page.click("input[type=submit]")
    for path in [
        "/admin/",
        "/admin/dashboard/",
        "/admin/glossary/entry/",
        "/admin/glossary/entry/add/",
        f"/admin/glossary/entry/{entry.pk}/change/",
        f"/admin/glossary/entry/{entry.pk}/unpublish/",
        "/admin/glossary/source/",
        f"/admin/glossary/source/{source.pk}/change/",
        "/admin/glossary/episode/",
        # Assignments and the calendar (docs/assignments.md).
        "/admin/my-work/",
        "/admin/plan/",
        f"/admin/assign/{entry.pk}/",
        "/admin/calendar/",
        "/admin/calendar/?view=week",
    ]:
        page.goto(f"{site}{path}")
        assert page.locator("#content").count() == 1, path
        if found := serious_violations(page):
            problems[path] = found
    assert problems == {}, report(problems)
