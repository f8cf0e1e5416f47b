"""Layout paper cuts measured in a real browser: the header at 1280 px, inline errors, tags."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from demo.content import load_demo
from glossary.models import Entry
from tests.browser import ARTIFACTS, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_public_header_search_stays_on_one_line_at_1280_pixels(browser, live_server):
    load_demo()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/")
    name = page.locator(".site-name").bounding_box()
    search = page.locator(".site-header .search-form").bounding_box()
    assert name is not None and search is not None
    # One row: the search box sits beside the site name, not below it.
    assert abs(search["y"] - name["y"]) < name["height"]
    page.screenshot(path=str(ARTIFACTS / "public-header-1280.png"))


def test_inline_errors_stay_inside_their_cells_and_the_tag_box_shows_its_text(browser, live_server):
    load_demo()
    User.objects.create_superuser("chief", "chief@example.com", "pw-chief-123")
    entry = Entry.objects.get(slug="interconnect")
    page = signed_in(browser, live_server, "chief", "pw-chief-123")
    page.goto(f"{live_server.url}/admin/glossary/entry/{entry.pk}/change/")
    tags = page.locator("#id_tags")
    tags.fill("ai infrastructure, networking, optical interconnects, scale-out")
    assert tags.evaluate("el => el.scrollWidth <= el.clientWidth")
    # Errors on fields that share a row with others (start, end, lightly edited; at).
    page.fill("#id_quotes-0-start", "not a time")
    page.fill("#id_quotes-0-end", "also not")
    page.fill("#id_references-0-at", "bad time")
    with page.expect_navigation():
        page.click("input[name=_continue]")
    # Each error and the fields beside it in the same row: no two boxes overlap.
    overlaps = page.evaluate(
        """() => {
        const out = [];
        for (const list of document.querySelectorAll('.form-multiline ul.errorlist')) {
          const mine = list.parentElement;
          const e = list.getBoundingClientRect();
          for (const other of mine.parentElement.children) {
            if (other === mine) continue;
            const o = other.getBoundingClientRect();
            const apart = e.right <= o.left + 1 || o.right <= e.left + 1
              || e.bottom <= o.top + 1 || o.bottom <= e.top + 1;
            if (!apart) out.push(list.id + ' overlaps ' + (other.className || other.tagName));
          }
        }
        return out;
    }"""
    )
    assert page.locator(".form-multiline ul.errorlist").count() == 3
    assert overlaps == []
    page.screenshot(path=str(ARTIFACTS / "admin-inline-errors.png"), full_page=True)
