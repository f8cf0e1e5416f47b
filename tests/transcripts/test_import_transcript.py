"""Storing an episode's transcript: `import_transcript`, the service and the command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from glossary.episode_transcripts import UnknownEpisode, find_episode, load_transcripts
from glossary.models import Episode, Transcript, TranscriptSegment
from glossary.transcript_imports import import_transcript
from glossary.transcripts.parse import TranscriptError

DATA = Path(__file__).parent / "data"

VTT = b"""WEBVTT

00:00:01.000 --> 00:00:04.000
<v Ada Guest>Hello there, listeners.

00:00:04.000 --> 00:00:09.000
<v Conor>And welcome back.
"""

# SRT stays strict: a timing it cannot read refuses the file (WebVTT skips the cue instead).
BROKEN = b"""1
00:00:01,000 --> 00:00:04,000
Ada Guest: Fine so far.

2
00:00:05,000 -> 00:00:09,000
Conor: This timing is broken.
"""


def test_it_stores_every_segment_with_times_speakers_and_order(episode: Episode) -> None:
    stored = import_transcript(episode, VTT, origin="seven.vtt")

    assert (stored.format, stored.origin, stored.segment_count) == ("vtt", "seven.vtt", 2)
    rows = list(stored.segments.values_list("order", "start", "end", "speaker", "text"))
    assert rows == [
        (0, 1.0, 4.0, "Ada Guest", "Hello there, listeners."),
        (1, 4.0, 9.0, "Conor", "And welcome back."),
    ]


@pytest.mark.parametrize("name", ["interview.vtt", "interview.srt", "interview.json"])
def test_it_reads_every_format_from_the_content(episode: Episode, name: str) -> None:
    stored = import_transcript(episode, (DATA / name).read_bytes(), origin=name)

    assert stored.format == name.rsplit(".", 1)[1]
    assert stored.segment_count == stored.segments.count() > 0


def test_importing_again_replaces_the_transcript_whole(episode: Episode) -> None:
    import_transcript(episode, (DATA / "interview.srt").read_bytes(), origin="a.srt")
    import_transcript(episode, VTT, origin="b.vtt")

    assert Transcript.objects.get().origin == "b.vtt"
    assert TranscriptSegment.objects.count() == 2


def test_a_broken_file_is_refused_naming_its_line_and_the_old_transcript_stays(
    episode: Episode,
) -> None:
    import_transcript(episode, VTT, origin="good.vtt")

    with pytest.raises(TranscriptError, match="line 6"):
        import_transcript(episode, BROKEN, origin="bad.srt")

    assert Transcript.objects.get().origin == "good.vtt"
    assert TranscriptSegment.objects.count() == 2


def test_a_file_without_speech_is_refused(episode: Episode) -> None:
    with pytest.raises(TranscriptError, match="no spoken text"):
        import_transcript(episode, b"WEBVTT\n\nNOTE nothing said\n", origin="empty.vtt")
    assert not Transcript.objects.exists()


def test_loading_gives_back_what_was_imported_in_two_queries(
    episode: Episode, django_assert_num_queries: Any
) -> None:
    import_transcript(episode, VTT, origin="seven.vtt")

    with django_assert_num_queries(2):
        loaded = load_transcripts([episode.pk, 999])

    assert list(loaded) == [episode.pk]
    assert [s.speaker for s in loaded[episode.pk].segments] == ["Ada Guest", "Conor"]


def test_an_episode_is_found_by_its_path_or_its_id(episode: Episode) -> None:
    assert find_episode("test-show/1/7") == episode
    assert find_episode("/episodes/test-show/1/7/") == episode
    assert find_episode(str(episode.pk)) == episode
    for wrong in ("test-show/1/8", "nope", "99999"):
        with pytest.raises(UnknownEpisode):
            find_episode(wrong)


def test_the_command_imports_a_file(episode: Episode, tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "seven.vtt"
    path.write_bytes(VTT)

    call_command("import_transcript", "test-show/1/7", str(path))

    assert "Imported 2 segments (WebVTT)" in capsys.readouterr().out
    assert Transcript.objects.get(episode=episode).origin == "seven.vtt"


def test_the_command_refuses_a_broken_file_naming_its_line(
    episode: Episode, tmp_path: Path
) -> None:
    import_transcript(episode, VTT, origin="good.vtt")
    path = tmp_path / "bad.srt"
    path.write_bytes(BROKEN)

    with pytest.raises(CommandError, match=r"bad.srt: line 6: .*keeps the transcript it had"):
        call_command("import_transcript", str(episode.pk), str(path))
    assert Transcript.objects.get().origin == "good.vtt"


def test_the_command_names_an_unknown_episode_or_a_missing_file(
    episode: Episode, tmp_path: Path
) -> None:
    with pytest.raises(CommandError, match="No episode at test-show/2/7"):
        call_command("import_transcript", "test-show/2/7", str(tmp_path / "x.vtt"))
    with pytest.raises(CommandError, match="Cannot read .*missing.vtt"):
        call_command("import_transcript", "test-show/1/7", str(tmp_path / "missing.vtt"))
