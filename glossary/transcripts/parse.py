"""Read an episode transcript: WebVTT, SRT or the Podcasting 2.0 JSON format.

The three formats `podcast:transcript` points at in practice. The format is
detected from the content, never from a file name or a MIME type, because
hosts label transcripts inconsistently.

The parsers are strict: a file either reads whole or raises `TranscriptError`
naming the line (for JSON, the segment and field). A transcript that is read
partially would make a quote look "not found" when the file is the problem.

Why not webvtt-py or srt: in non-strict mode webvtt-py 0.6 drops a malformed
cue without a word, and in strict mode its error names no line
("Invalid cue block [...]"); srt 3.5 reads the timing `00:00:0x,000` as ending
at 0:00 and keeps "x,000" as a cue setting. webvtt-py also reads only the first
voice span of a cue. The small block parser below does what we need.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from glossary.inbound import InboundError, control_character, load_json


class TranscriptError(ValueError):
    """The transcript cannot be read; the message names the line, or the JSON segment and field."""


class TranscriptFormat(StrEnum):
    WEBVTT = "vtt"
    SRT = "srt"
    JSON = "json"


@dataclass(frozen=True)
class Segment:
    """A stretch of speech: seconds from the start of the episode, the speaker's label as the
    transcript writes it ("" when it names none) and the words as written, tags removed."""

    start: float
    end: float
    speaker: str
    text: str


@dataclass(frozen=True)
class Transcript:
    """The segments of one episode in time order, and the format they were read from."""

    format: TranscriptFormat
    segments: tuple[Segment, ...]

    def __bool__(self) -> bool:
        return bool(self.segments)

    @property
    def duration(self) -> float:
        return self.segments[-1].end if self.segments else 0.0


def parse_transcript(content: bytes | str) -> Transcript:
    """Read a WebVTT, SRT or Podcasting 2.0 JSON transcript, detecting which from the content.

    Bytes must be UTF-8 (a byte order mark is allowed). Raises `TranscriptError`.
    """
    text = _decode(content) if isinstance(content, bytes) else content.removeprefix("\ufeff")
    control = control_character(text)
    if control is not None:
        # NUL cannot be stored in PostgreSQL text; no other control character belongs in
        # a transcript (tab, line feed and carriage return aside).
        line, char = control
        raise TranscriptError(
            f"line {line}: the control character {char} cannot be stored; remove it "
            "(was the file saved as UTF-16, or cut from a binary file?)"
        )
    stripped = text.lstrip()
    if text.startswith("WEBVTT"):
        return Transcript(TranscriptFormat.WEBVTT, tuple(_parse_webvtt(text)))
    if stripped.startswith(("{", "[")):
        return Transcript(TranscriptFormat.JSON, tuple(_parse_json(text)))
    first = stripped.split("\n", 1)[0].strip()
    if first.isdigit() or _SRT_TIMING.match(first):
        return Transcript(TranscriptFormat.SRT, tuple(_parse_srt(text)))
    line = text.count("\n", 0, len(text) - len(stripped)) + 1
    if stripped.startswith("<"):
        raise TranscriptError(
            f"line {line}: this looks like HTML or XML; transcripts are read as WebVTT, SRT or "
            "Podcasting 2.0 JSON"
        )
    if not stripped:
        raise TranscriptError("the transcript is empty")
    raise TranscriptError(
        f"line {line}: not a transcript we can read: WebVTT starts with 'WEBVTT', SRT with a "
        "cue number, Podcasting 2.0 JSON with '{'"
    )


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise TranscriptError(
            f"line {line}: byte {data[exc.start]:#04x} is not UTF-8; save the transcript as UTF-8"
        ) from None


# A cue's times: WebVTT writes `mm:ss.ttt` or `hh:mm:ss.ttt`; SRT always has hours and a comma,
# though many tools write a full stop, which we accept.
_VTT_TIME = r"(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})"
_VTT_TIMING = re.compile(rf"^{_VTT_TIME}[ \t]+-->[ \t]+{_VTT_TIME}(?:[ \t]+.*)?$")
_SRT_TIME = r"(\d{1,}):([0-5]\d):([0-5]\d)[,.](\d{3})"
_SRT_TIMING = re.compile(rf"^{_SRT_TIME}[ \t]+-->[ \t]+{_SRT_TIME}(?:[ \t]+.*)?$")
_TAG = re.compile(r"<([^<>]*)>")
_VOICE = re.compile(r"^v(?:\.[^\s]*)?(?:[ \t]+(.*))?$", re.DOTALL)


def _seconds(hours: str | None, minutes: str, seconds: str, millis: str) -> float:
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis) / 1000


def _clock(seconds: float) -> str:
    whole, millis = divmod(round(seconds * 1000), 1000)
    hours, rest = divmod(whole, 3600)
    return f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}.{millis:03d}"


def _blocks(lines: list[str], first: int) -> Iterator[tuple[int, list[str]]]:
    """Blocks of non-blank lines from `lines[first:]`, each with the 1-based number of its first
    line."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(lines[first:], start=first + 1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _check_times(previous: float | None, start: float, end: float | None, where: str) -> None:
    if end is not None and end < start:
        raise TranscriptError(f"{where}: ends at {_clock(end)}, before it starts ({_clock(start)})")
    if previous is not None and start < previous:
        raise TranscriptError(
            f"{where}: starts at {_clock(start)}, before the cue before it ({_clock(previous)}); "
            "cues must be in time order"
        )


def _no_arrow(lines: list[str], first_line: int, inside: str) -> None:
    for number, line in enumerate(lines, start=first_line):
        if "-->" in line:
            raise TranscriptError(
                f"line {number}: '-->' inside {inside}; is a blank line missing before this cue?"
            )


def _parse_webvtt(text: str) -> list[Segment]:
    lines = text.splitlines()
    header = lines[0]
    if header != "WEBVTT" and not header.startswith(("WEBVTT ", "WEBVTT\t")):
        raise TranscriptError("line 1: a WebVTT file starts with a line 'WEBVTT'")
    # The header runs to the first blank line; a cue may not follow it directly.
    header_end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    _no_arrow(lines[1:header_end], 2, "the WEBVTT header")
    segments: list[Segment] = []
    previous: float | None = None
    for number, block in _blocks(lines, header_end):
        keyword = block[0].split(maxsplit=1)[0]
        if keyword in ("NOTE", "STYLE", "REGION"):
            _no_arrow(block, number, f"a {keyword} block")
            continue
        timing_at = 0 if "-->" in block[0] else 1  # a first line without "-->" names the cue
        where = f"line {number + timing_at}"
        if timing_at >= len(block) or "-->" not in block[timing_at]:
            raise TranscriptError(
                f"line {number}: expected a cue timing line such as "
                f"'00:25:38.000 --> 00:25:42.500', found {block[0].strip()!r}"
            )
        timing = _VTT_TIMING.match(block[timing_at].strip())
        if timing is None:
            raise TranscriptError(
                f"{where}: {block[timing_at].strip()!r} is not a cue timing; write "
                "'00:25:38.000 --> 00:25:42.500' (hours optional, milliseconds required)"
            )
        groups = timing.groups()
        start, end = _seconds(*groups[:4]), _seconds(*groups[4:])
        _check_times(previous, start, end, where)
        previous = start
        payload = block[timing_at + 1 :]
        _no_arrow(payload, number + timing_at + 1, "a cue's text")
        for speaker, words in _voices(payload, number + timing_at + 1):
            if words:
                segments.append(Segment(start, end, speaker, words))
    return segments


def _voices(payload: list[str], first_line: int) -> Iterator[tuple[str, str]]:
    """Split a cue's text at its voice spans (`<v Jeetu Patel>`), dropping every other tag."""
    speaker = ""
    parts: list[str] = []
    for number, line in enumerate(payload, start=first_line):
        if "<" in _TAG.sub("", line):
            raise TranscriptError(
                f"line {number}: a '<' that opens no tag; write &lt; for the character itself"
            )
        position = 0
        for tag in _TAG.finditer(line):
            parts.append(line[position : tag.start()])
            position = tag.end()
            voice = _VOICE.match(tag.group(1))
            if voice:
                if "".join(parts).strip():
                    yield speaker, _clean("".join(parts))
                parts = []
                speaker = (voice.group(1) or "").strip()
        parts.append(line[position:])
        parts.append(" ")
    yield speaker, _clean("".join(parts))


def _clean(text: str) -> str:
    return " ".join(html.unescape(text).split())


_SRT_TAG = re.compile(r"</?(?:i|b|u|font)\b[^>]*>", re.IGNORECASE)


def _parse_srt(text: str) -> list[Segment]:
    lines = text.splitlines()
    cues: list[tuple[float, float, str]] = []
    previous: float | None = None
    for number, block in _blocks(lines, 0):
        if not block[0].strip().isdigit():
            raise TranscriptError(
                f"line {number}: expected a cue number, found {block[0].strip()!r}; "
                "is a blank line missing inside a cue, or one missing before it?"
            )
        where = f"line {number + 1}"
        if len(block) < 2:
            raise TranscriptError(f"{where}: cue {block[0].strip()} has no timing line")
        timing = _SRT_TIMING.match(block[1].strip())
        if timing is None:
            raise TranscriptError(
                f"{where}: {block[1].strip()!r} is not a cue timing; write "
                "'00:25:38,000 --> 00:25:42,500'"
            )
        groups = timing.groups()
        start, end = _seconds(*groups[:4]), _seconds(*groups[4:])
        _check_times(previous, start, end, where)
        previous = start
        _no_arrow(block[2:], number + 2, "a cue's text")
        cues.append((start, end, " ".join(_SRT_TAG.sub("", " ".join(block[2:])).split())))
    return _srt_speakers(cues)


# SRT marks a change of speaker with "Name:" at the start of a cue (the Podcasting 2.0
# transcript guidance), and the speaker carries on until the next label. One capitalised word
# before a colon is often not a name ("Look: ..."), so a single word counts only when it
# recurs; two or more capitalised words, or capitals throughout ("JEETU PATEL:"), count at once.
_PARTICLES = r"(?:von|van|der|den|de|da|di|du|la|le|bin|al|el|ibn)"
_NAME_WORD = r"[A-Z][\w'’.\-]*"
_SPEAKER = re.compile(
    rf"^((?:{_NAME_WORD})(?: (?:{_NAME_WORD}|{_PARTICLES})){{0,3}}|[A-Z][A-Z0-9 .'’\-]*)"
    r":[ \t]+(\S.*)$"
)


def _srt_speakers(cues: list[tuple[float, float, str]]) -> list[Segment]:
    labels = [_SPEAKER.match(text) for _, _, text in cues]
    counts: dict[str, int] = {}
    for label in labels:
        if label:
            counts[label.group(1)] = counts.get(label.group(1), 0) + 1
    segments: list[Segment] = []
    speaker = ""
    for (start, end, text), label in zip(cues, labels, strict=True):
        if label:
            name = label.group(1)
            if counts[name] > 1 or " " in name.strip() or (name.isupper() and len(name) > 1):
                speaker, text = name.strip(), label.group(2)
        if text:
            segments.append(Segment(start, end, speaker, text))
    return segments


def _parse_json(text: str) -> list[Segment]:
    try:
        document = load_json(text)
    except InboundError as exc:
        raise TranscriptError(str(exc)) from None
    if not isinstance(document, dict) or "segments" not in document:
        raise TranscriptError(
            'a Podcasting 2.0 JSON transcript is an object {"version": ..., "segments": [...]}'
        )
    version = document.get("version", "")
    if not isinstance(version, str):
        raise TranscriptError(f"'version' must be a string such as \"1.0.0\", got {version!r}")
    raw = document["segments"]
    if not isinstance(raw, list):
        raise TranscriptError(f"'segments' must be a list, got {type(raw).__name__}")
    rows: list[tuple[float, float | None, str, str]] = []
    for index, item in enumerate(raw):
        where = f"segment {index}"
        if not isinstance(item, dict):
            raise TranscriptError(f"{where}: must be an object, got {item!r}")
        start = _json_seconds(item, "startTime", where)
        if start is None:
            raise TranscriptError(f"{where}: 'startTime' is missing (seconds from the start)")
        end = _json_seconds(item, "endTime", where)
        body = item.get("body")
        if not isinstance(body, str):
            raise TranscriptError(f"{where}: 'body' must be the words spoken, got {body!r}")
        speaker = item.get("speaker", "")
        if not isinstance(speaker, str):
            raise TranscriptError(f"{where}: 'speaker' must be a name, got {speaker!r}")
        for name, value in (("body", body), ("speaker", speaker)):
            # JSON can write any control character as an escape (\u0000).
            control = control_character(value)
            if control is not None:
                raise TranscriptError(
                    f"{where}: '{name}' holds the control character {control[1]}, which "
                    "cannot be stored; remove it"
                )
        if end is not None and end < start:
            raise TranscriptError(f"{where}: 'endTime' {end:g} is before 'startTime' {start:g}")
        if rows and start < rows[-1][0]:
            raise TranscriptError(
                f"{where}: 'startTime' {start:g} is before segment {index - 1}'s "
                f"({rows[-1][0]:g}); segments must be in time order"
            )
        rows.append((start, end, speaker.strip(), _clean(body)))
    segments = []
    for index, (start, end, speaker, body) in enumerate(rows):
        if end is None:
            # endTime is optional ("if available"): the segment lasts until the next one starts.
            end = rows[index + 1][0] if index + 1 < len(rows) else start
        if body:
            segments.append(Segment(start, end, speaker, body))
    return segments


def _json_seconds(item: dict[str, Any], field: str, where: str) -> float | None:
    value = item.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TranscriptError(f"{where}: '{field}' must be a number of seconds, got {value!r}")
    if value < 0:
        raise TranscriptError(f"{where}: '{field}' is negative ({value!r})")
    return float(value)
