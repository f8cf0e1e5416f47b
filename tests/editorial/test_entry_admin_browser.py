"""The entry change page in a real browser: saving an untouched entry loses nothing."""

import pytest
from django.contrib.auth.models import User

from demo.content import load_demo
from glossary.models import Entry, Quote
from tests.browser import ARTIFACTS, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_saving_the_seed_entry_in_a_browser_keeps_every_timestamp(browser, live_server):
    load_demo()
    User.objects.create_superuser("chief", "chief@example.com", "pw-chief-123")
    entry = Entry.objects.get(slug="interconnect")
    before = list(Quote.objects.filter(entry=entry).values_list("start", flat=True))

    page = signed_in(browser, live_server, "chief", "pw-chief-123")
    page.goto(f"{live_server.url}/admin/glossary/entry/{entry.pk}/change/")
    assert page.input_value("#id_quotes-0-start") == "25:38"
    page.fill("#id_summary", "Edited in a real browser.")
    with page.expect_navigation():
        page.click("input[name=_continue]")

    page.screenshot(path=str(ARTIFACTS / "admin-entry-saved.png"), full_page=False)
    assert page.locator(".errornote").count() == 0
    entry.refresh_from_db()
    assert entry.summary == "Edited in a real browser."
    assert list(Quote.objects.filter(entry=entry).values_list("start", flat=True)) == before
