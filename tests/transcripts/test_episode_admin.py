"""The episode admin: a transcript upload (same rules as the command) and its segments."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from glossary.models import Episode, RecordEdit, Transcript
from glossary.transcript_imports import import_transcript

VTT = b"WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ada Guest>Hello there, listeners.\n"
BROKEN = b"1\n00:00:01,000 --> 00:00:04,000\nFine.\n\n2\n00:00:05,000 -> 00:00:09,000\nNo.\n"


def form_data(episode: Episode, upload: bytes, name: str = "seven.vtt") -> dict[str, Any]:
    return {
        "show": episode.show_id,
        "season": episode.season,
        "number": episode.number,
        "title": "Seven, retitled",
        "duration": "1:00:00",
        "url": episode.url,
        "audio_url": "",
        "transcript_file": SimpleUploadedFile(name, upload),
        "sponsorships-TOTAL_FORMS": "0",
        "sponsorships-INITIAL_FORMS": "0",
        "appearances-TOTAL_FORMS": "0",
        "appearances-INITIAL_FORMS": "0",
    }


def url(episode: Episode) -> str:
    return f"/admin/glossary/episode/{episode.pk}/change/"


def test_an_uploaded_transcript_is_imported_credited_to_the_uploader(
    client: Client, editor: User, episode: Episode
) -> None:
    client.force_login(editor)

    response = client.post(url(episode), form_data(episode, VTT))

    assert response.status_code == 302, response.content.decode()[:2000]
    stored = Transcript.objects.get(episode=episode)
    assert (stored.origin, stored.imported_by, stored.segment_count) == ("seven.vtt", editor, 1)


def test_a_broken_upload_is_refused_on_the_form_naming_its_line_and_nothing_changes(
    client: Client, editor: User, episode: Episode
) -> None:
    import_transcript(episode, VTT, origin="good.vtt")
    client.force_login(editor)

    response = client.post(url(episode), form_data(episode, BROKEN, "bad.srt"))

    assert response.status_code == 200
    assert "bad.srt: line 6:" in response.content.decode()
    assert "Nothing was imported." in response.content.decode()
    episode.refresh_from_db()
    assert episode.title == "Seven"  # what the editor typed stays on the form, unsaved
    assert Transcript.objects.get().origin == "good.vtt"


def test_the_change_page_lists_the_segments_read_only_and_bounded(
    client: Client, editor: User, episode: Episode
) -> None:
    cues = "".join(
        f"\n{n // 60:02d}:{n % 60:02d}.000 --> {n // 60:02d}:{n % 60:02d}.500\n<v Conor>Line {n}.\n"
        for n in range(250)
    )
    import_transcript(episode, "WEBVTT\n" + cues, origin="long.vtt")
    client.force_login(editor)

    html = client.get(url(episode)).content.decode()

    assert "WebVTT, 250 segments, imported from <code>long.vtt</code>" in html
    assert "<td>Line 199.</td>" in html and "Line 200." not in html
    assert "… and 50 more segments, not listed here." in html


def test_without_a_transcript_the_page_says_quotes_cannot_be_checked(
    client: Client, editor: User, episode: Episode
) -> None:
    client.force_login(editor)

    assert "No transcript yet" in client.get(url(episode)).content.decode()


def test_an_upload_alone_says_only_what_the_import_recorded(
    client: Client, editor: User, episode: Episode
) -> None:
    """The episode's own "no entry's page shows it, so no entry needed a new version" is
    not said beside the import's versions, for an episode entries quote."""
    client.force_login(editor)
    data = form_data(episode, VTT)
    data["title"] = episode.title  # nothing but the transcript changes

    response = client.post(url(episode), data, follow=True)

    page = response.content.decode()
    assert "Imported 1 transcript segments" in page
    assert "no entry needed a new version" not in page
    assert episode.pk in set(
        RecordEdit.objects.filter(edited_by=editor, kind="episode").values_list(
            "object_id", flat=True
        )
    )


def test_an_upload_with_no_spoken_text_is_refused_on_the_form_not_after_it(
    client: Client, editor: User, episode: Episode
) -> None:
    """A file that parses but holds no cue (a header alone, a cue whose timing is skipped)
    was refused only after the form was saved: a 500, and the form lost."""
    client.force_login(editor)
    for name, upload in [
        ("empty.vtt", b"WEBVTT\n\n"),
        ("note.vtt", b"WEBVTT\n\nNOTE hello\n"),
        ("skipped.vtt", b"WEBVTT\n\n" + b"9" * 5000 + b":00.000 --> 00:05.000\nhi\n"),
    ]:
        response = client.post(url(episode), form_data(episode, upload, name))

        assert response.status_code == 200, name
        page = response.content.decode()
        assert f"{name}: the transcript has no spoken text. Nothing was imported." in page
        assert 'value="Seven, retitled"' in page  # what the editor typed is still there
        episode.refresh_from_db()
        assert episode.title == "Seven"
        assert not Transcript.objects.filter(episode=episode).exists()
