"""fetch_transcript: a transcript URL fetched through the guarded door and imported."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from demo.demo_data import TRANSCRIPTS
from editorial.transcripts import TranscriptFetchError, fetch_transcript
from glossary.models import Episode, Transcript

FILES = {
    "/44.vtt": TRANSCRIPTS[44].read_bytes(),
    "/28.json": TRANSCRIPTS[28].read_bytes(),
    "/broken.srt": b"1\n00:00:01,000 --> 00:00:0x,000\nHello.\n",
    "/big.vtt": b"WEBVTT\n\n" + b"NOTE " + b"x" * 5000 + b"\n",
    "/skips.vtt": (
        b"WEBVTT\n\n00:00:60.000 --> 00:01:02.000\nLost.\n\n00:01:03.000 --> 00:01:04.000\nKept.\n"
    ),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server spelling
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/44.vtt")
            self.end_headers()
            return
        body = FILES.get(self.path)
        if body is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/vtt")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def loopback_allowed(settings: Any) -> Any:
    settings.LINKCHECK_ALLOW_PRIVATE = ["127.0.0.1"]
    settings.LINKCHECK_TOTAL_TIMEOUT = 5.0
    settings.TRANSCRIPT_MAX_BYTES = 4096
    return settings


def test_it_fetches_and_imports_a_webvtt_transcript(
    episode: Episode, site: str, loopback_allowed: Any
) -> None:
    stored = fetch_transcript(episode, f"{site}/44.vtt")

    assert (stored.format, stored.origin) == ("vtt", f"{site}/44.vtt")
    assert stored.segments.filter(speaker="Jeetu Patel").exists()


def test_it_follows_a_redirect_and_reads_json_too(
    episode: Episode, site: str, loopback_allowed: Any
) -> None:
    assert fetch_transcript(episode, f"{site}/moved").format == "vtt"
    assert fetch_transcript(episode, f"{site}/28.json").format == "json"
    assert Transcript.objects.count() == 1


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/broken.srt", r"/broken.srt: line 2: .* is not a cue timing"),
        ("/missing.vtt", r"/missing.vtt answered HTTP 404"),
        ("/big.vtt", r"/big.vtt is larger than 4,096 bytes"),
    ],
)
def test_a_failure_names_the_url_and_keeps_the_old_transcript(
    episode: Episode, site: str, loopback_allowed: Any, path: str, error: str
) -> None:
    fetch_transcript(episode, f"{site}/44.vtt")

    with pytest.raises(TranscriptFetchError, match=error):
        fetch_transcript(episode, f"{site}{path}")

    assert Transcript.objects.get().origin == f"{site}/44.vtt"


def test_a_private_address_is_refused_unless_allowed(
    episode: Episode, site: str, settings: Any
) -> None:
    settings.LINKCHECK_ALLOW_PRIVATE = []

    with pytest.raises(TranscriptFetchError, match="was not fetched"):
        fetch_transcript(episode, f"{site}/44.vtt")
    assert not Transcript.objects.exists()


def test_the_episode_admin_fetches_the_transcript_the_feed_names(
    episode: Episode, site: str, loopback_allowed: Any, admin_client: Any
) -> None:
    Episode.objects.filter(pk=episode.pk).update(transcript_url=f"{site}/44.vtt")
    action = {"action": "fetch_feed_transcript", "_selected_action": [episode.pk]}

    response = admin_client.post("/admin/glossary/episode/", action, follow=True)

    assert Transcript.objects.get(episode=episode).origin == f"{site}/44.vtt"
    assert "imported" in response.content.decode()

    # A failure names why and keeps the transcript the episode had.
    Episode.objects.filter(pk=episode.pk).update(transcript_url=f"{site}/missing.vtt")
    response = admin_client.post("/admin/glossary/episode/", action, follow=True)

    assert "answered HTTP 404" in response.content.decode()
    assert Transcript.objects.get(episode=episode).origin == f"{site}/44.vtt"


def test_the_fetch_action_shows_what_the_import_skipped(
    episode: Episode, site: str, loopback_allowed: Any, admin_client: Any
) -> None:
    Episode.objects.filter(pk=episode.pk).update(transcript_url=f"{site}/skips.vtt")
    action = {"action": "fetch_feed_transcript", "_selected_action": [episode.pk]}

    response = admin_client.post("/admin/glossary/episode/", action, follow=True)

    page = response.content.decode()
    assert "imported 1 transcript segments" in page
    assert "line 3: &#x27;00:00:60.000 --&gt; 00:01:02.000&#x27; is not a cue timing" in page
    assert Transcript.objects.get(episode=episode).warnings[0].startswith("line 3: ")


def test_the_action_says_so_when_the_feed_names_no_transcript(
    episode: Episode, admin_client: Any
) -> None:
    action = {"action": "fetch_feed_transcript", "_selected_action": [episode.pk]}

    response = admin_client.post("/admin/glossary/episode/", action, follow=True)

    assert "the feed names no transcript" in response.content.decode()
    assert not Transcript.objects.exists()
