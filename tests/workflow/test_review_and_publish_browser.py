"""The review-and-publish path in a real browser: a writer drafts and submits, an editor
publishes over a failing check with a written reason, and readers see the entry."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from editorial.models import WorkflowEvent
from glossary.models import Entry
from tests.browser import ARTIFACTS


def _log_in(browser: Any, base: str, user: User) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 1400}).new_page()
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "pw-" + user.username)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")
    return page


@pytest.mark.browser
def test_a_writer_drafts_and_submits_and_an_editor_publishes(
    live_server: Any, browser: Any, writer: User, editor: User
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    base = live_server.url

    wanda = _log_in(browser, base, writer)
    wanda.goto(f"{base}/admin/glossary/entry/add/")
    wanda.fill("#id_term", "Scale-up network")
    wanda.fill("#id_summary", "The links that make a rack of accelerators act like one chip.")
    wanda.fill("#id_body", "A **scale-up network** joins a small group of accelerators.")
    wanda.click("input[name=_continue]")
    wanda.wait_for_selector(".workflow-panel")
    assert "Saved as version 1." in wanda.content()
    # The slug was filled from the term by the admin's own script.
    entry = Entry.objects.get(term="Scale-up network")
    assert entry.slug == "scale-up-network"
    wanda.click("input[name=submit_for_review]")
    wanda.wait_for_selector("text=is in review")
    assert wanda.inner_text(".workflow-status") == "In review"
    assert "Review checks and publish" not in wanda.content()
    wanda.screenshot(path=str(ARTIFACTS / "workflow-in-review.png"))

    ed = _log_in(browser, base, editor)
    ed.goto(f"{base}/admin/glossary/entry/{entry.pk}/change/")
    ed.click("text=Review checks and publish…")
    ed.wait_for_selector("#gate-results")
    assert ed.inner_text("tr[data-code=has_source] td") == "Blocks publishing"
    ed.fill("#id_override_reason", "The claim is sourced from episode 44 itself.")
    ed.screenshot(path=str(ARTIFACTS / "workflow-publish-gates.png"), full_page=True)
    ed.click("input[name=publish]")
    ed.wait_for_selector("text=Readers now see it at")
    assert ed.inner_text(".workflow-status") == "Published"

    reader = browser.new_context().new_page()
    response = reader.goto(f"{base}/glossary/scale-up-network/")
    assert response is not None and response.status == 200
    assert reader.inner_text("h1") == "Scale-up network"
    assert "joins a small group of accelerators" in reader.inner_text("main")
    reader.screenshot(path=str(ARTIFACTS / "workflow-published-entry.png"), full_page=True)

    override = WorkflowEvent.objects.get(entry=entry, action="publish")
    assert override.actor == editor
    assert override.override_reason == "The claim is sourced from episode 44 itself."
