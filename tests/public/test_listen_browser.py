"""In a real browser: the player listen.js adds is reached and driven by keyboard.

The demo's audio is pointed at this test server (a missing file), so nothing leaves
loopback; the test is about the controls, not the sound.
"""

from __future__ import annotations

from typing import Any

import pytest

from glossary import publishing
from glossary.models import Entry, Episode
from tests.live import make_live_unchecked

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_timestamp_gets_a_keyboard_play_button_and_one_labelled_player(
    live_server: Any, browser: Any, editor: Any, second_editor: Any
) -> None:
    from demo.content import load_demo

    load_demo()
    audio = f"{live_server.url}/static/glossary/no-such-episode.mp3"
    Episode.objects.filter(number=44).update(audio_url=audio)
    publishing.record_reference_change(
        "episode", [Episode.objects.get(number=44).pk], user=editor, what="test audio"
    )
    entry = Entry.objects.get(slug="interconnect")
    make_live_unchecked(entry, user=second_editor, version=entry.versions.order_by("-number")[0])

    page = browser.new_page()
    page.goto(live_server.url + "/glossary/interconnect/", wait_until="load")
    link = page.locator(f'a[href="{audio}#t=1538"]').first
    assert link.count() == 1
    button = page.get_by_role("button", name="Play episode 44 at 25:38 here").first
    assert button.count() == 1
    # The button comes right after its link in the tab order.
    link.focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == (
        "Play episode 44 at 25:38 here"
    )
    page.keyboard.press("Enter")
    player = page.get_by_role("region", name="Episode player")
    assert player.is_visible()
    assert page.locator(".listen-player audio[controls]").get_attribute("src") == audio
    assert "episode 44 at 25:38" in (page.locator(".listen-status").text_content() or "")
    assert page.locator(".listen-status").get_attribute("aria-live") == "polite"
    page.get_by_role("button", name="Close player").click()
    assert not player.is_visible()
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == (
        "Play episode 44 at 25:38 here"
    )
    assert page.locator(".listen-player").count() == 1  # one player, reused
