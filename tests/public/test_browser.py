"""The public site in a real browser (Debian's chromium, headless): read, follow, search.

Screenshots go to test-artifacts/ (desktop, a 360 px phone, print).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from demo.content import load_demo
from tests.browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(live_server: Any) -> str:
    load_demo()
    return live_server.url


def test_the_entry_page_has_all_its_parts(browser, site):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(f"{site}/glossary/interconnect/")
    assert page.title() == "Interconnect — The Show Glossary"
    assert page.locator("h1 dfn").inner_text() == "Interconnect"
    assert page.locator("main p.on-the-show a time").count() == 4
    assert page.locator("figure.quote blockquote").count() == 2
    assert (
        page.locator("figure.quote figcaption").first.inner_text().startswith("Jeetu Patel, Cisco")
    )
    assert page.get_by_text("Quotes lightly edited to remove filler words.").is_visible()
    assert page.locator("section.sources li").count() == 3
    assert page.locator("section.sources time").first.inner_text() == "October 24, 2026"
    assert page.locator(".disclosure").count() == 3
    assert page.locator("p.updated").inner_text().startswith("Last updated")
    data = json.loads(page.locator('script[type="application/ld+json"]').inner_text())
    assert data["mainEntity"]["@type"] == "DefinedTerm"
    # The skip link is the first thing a keyboard reaches, and it is shown when focused.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    assert page.locator("a.skip").is_visible()
    page.screenshot(path=str(ARTIFACTS / "public-entry.png"), full_page=True)


def test_following_a_see_also_link_opens_that_entry(browser, site):
    page = browser.new_page()
    page.goto(f"{site}/glossary/interconnect/")
    page.locator("p.see-also").get_by_role("link", name="high-bandwidth memory").click()
    page.wait_for_url(f"{site}/glossary/high-bandwidth-memory/")
    assert page.locator("h1").inner_text() == "High-bandwidth memory"


def test_searching_and_following_a_result_without_javascript(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/")
    page.get_by_label("Search the glossary").fill("interconect")
    page.get_by_role("button", name="Search").first.click()
    page.wait_for_url("**/search/?q=interconect")
    assert "spelt similarly" in page.locator("main").inner_text()
    page.locator("ol.search-results a").first.click()
    page.wait_for_url(f"{site}/glossary/interconnect/")
    assert page.locator("h1").inner_text() == "Interconnect"
    page.screenshot(path=str(ARTIFACTS / "public-search-result.png"))


def test_the_entry_page_fits_a_360_pixel_phone(browser, site):
    page = browser.new_page(viewport={"width": 360, "height": 740}, device_scale_factor=2)
    page.goto(f"{site}/glossary/interconnect/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(ARTIFACTS / "public-entry-phone.png"), full_page=True)
    page.goto(f"{site}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(ARTIFACTS / "public-index-phone.png"), full_page=True)


def test_print_leaves_out_navigation(browser, site):
    page = browser.new_page()
    page.goto(f"{site}/glossary/interconnect/")
    page.emulate_media(media="print")
    assert not page.locator("header.site-header").is_visible()
    assert page.locator("article.entry").is_visible()
    page.screenshot(path=str(ARTIFACTS / "public-entry-print.png"), full_page=True)


def test_other_pages_render_in_the_site_design(browser, site):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    for path, name in (
        ("/", "index"),
        ("/episodes/demo-show/3/44/", "episode"),
        ("/organisations/galileo/", "organisation"),
        ("/no-such-page/", "404"),
    ):
        page.goto(f"{site}{path}")
        assert page.locator("header.site-header").is_visible()
        page.screenshot(path=str(ARTIFACTS / f"public-{name}.png"), full_page=True)
