"""Read an episode transcript: WebVTT, SRT or the Podcasting 2.0 JSON format.

The three formats `podcast:transcript` points at in practice. The format is
detected from the content, never from a file name or a MIME type, because
hosts label transcripts inconsistently.

WebVTT is read as the WHATWG/W3C WebVTT parser reads it, because the files we get
are the ones players accept: a cue whose timing cannot be read, a cue that ends
before it starts, text outside any cue, a STYLE block after the first cue and a
'<' that opens no tag are skipped where a browser skips them, and each skip is a
warning naming its line (`Transcript.warnings`), shown to whoever imports. Only
what a browser refuses is refused: a file without the `WEBVTT` line. Cues out of
time order are put in order, as a browser's cue list is.

SRT and JSON stay strict: a broken file raises `TranscriptError` naming the line
(for JSON, the segment and field), because a transcript read partially without
saying so would make a quote look "not found" when the file is the problem. SRT
may leave out cue numbers, and its tags (`<i>`, `<font>`, `{\\an8}`) are dropped.

Bytes may be UTF-8 (with or without a byte order mark), UTF-16 or Windows-1252;
anything but UTF-8 is said in the warnings. Control characters other than tab,
line feed, carriage return (and, in WebVTT, form feed) are refused as binary
garbage: NUL cannot be stored in PostgreSQL text. Every stored text has its
bidirectional overrides and zero-width characters removed (inbound.strip_invisible).

Every step is linear in the size of the file, and the warnings kept, the segments,
the WebVTT blocks and tags are capped (`MAX_WARNINGS`, `MAX_SEGMENTS`, `MAX_TAGS`), so
a transcript under `TRANSCRIPT_MAX_BYTES` costs bounded memory and about a second
however it is written.

Why not webvtt-py or srt: webvtt-py 0.6 drops a malformed cue without a word (or,
strict, names no line), reads only the first voice span of a cue and does not
close one at `</v>`; srt 3.5 reads the timing `00:00:0x,000` as ending at 0:00.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from glossary.inbound import InboundError, control_character, load_json, strip_invisible


class TranscriptError(ValueError):
    """The transcript cannot be read; the message names the line, or the JSON segment and field."""


class TranscriptFormat(StrEnum):
    WEBVTT = "vtt"
    SRT = "srt"
    JSON = "json"


@dataclass(frozen=True)
class Segment:
    """A stretch of speech: seconds from the start of the episode, the speaker's label as the
    transcript writes it ("" when it names none) and the words as written, tags removed.

    `line` is where its cue's timing is in the file (0 when not read from a file's lines);
    it is left out of comparisons."""

    start: float
    end: float
    speaker: str
    text: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Transcript:
    """The segments of one episode in time order, the format they were read from, the
    encoding of the bytes and what was skipped or guessed while reading ("line 12: ...")."""

    format: TranscriptFormat
    segments: tuple[Segment, ...]
    warnings: tuple[str, ...] = ()
    encoding: str = "UTF-8"

    def __bool__(self) -> bool:
        return bool(self.segments)

    @property
    def duration(self) -> float:
        return self.segments[-1].end if self.segments else 0.0


# Warnings kept per file: a file with a thousand broken cues says so without a thousand lines.
MAX_WARNINGS = 50
# Segments one transcript may hold: a two-hour episode has about 2,000, and each is a row
# stored and read on every check, so a file of a million tiny cues is refused while it is read.
MAX_SEGMENTS = 100_000
# Tags one WebVTT file may hold: YouTube's word-by-word captions of a two-hour episode have
# about 60,000; each costs a step of reading.
MAX_TAGS = 500_000
# What an error or a warning quotes of a line.
_QUOTED = 60


class _Warnings:
    """The warnings of one read, the first `MAX_WARNINGS` kept and the rest counted."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.more = 0

    @property
    def full(self) -> bool:
        return len(self.kept) >= MAX_WARNINGS

    def add(self, message: str) -> None:
        if self.full:
            self.more += 1
        else:
            self.kept.append(message)

    def result(self) -> tuple[str, ...]:
        if self.more:
            return (*self.kept, f"… and {self.more:,} more warnings like these")
        return tuple(self.kept)


def _too_many(where: str, what: str = "segments") -> TranscriptError:
    return TranscriptError(
        f"{where}: more than {MAX_SEGMENTS:,} {what}; an episode's transcript has far fewer "
        "(a two-hour one, about 2,000). Is this one episode's transcript?"
    )


def _quote(text: str) -> str:
    """`text` as an error quotes it: repr, cut short."""
    if len(text) > _QUOTED:
        return repr(text[:_QUOTED]) + f"… ({len(text):,} characters)"
    return repr(text)


def parse_transcript(content: bytes | str) -> Transcript:
    """Read a WebVTT, SRT or Podcasting 2.0 JSON transcript, detecting which from the content.

    Bytes may be UTF-8, UTF-16 or Windows-1252 (see the module). Raises `TranscriptError`.
    """
    warnings = _Warnings()
    encoding = "UTF-8"
    if isinstance(content, bytes):
        text, encoding, note = _decode(content)
        if note:
            warnings.add(note)
    else:
        text = content.removeprefix("\ufeff")
    # WebVTT's line breaks; str.splitlines would also break at form feed and U+2028.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    webvtt = text.startswith("WEBVTT")
    # WebVTT reads form feed as whitespace; no other control character belongs in a transcript.
    control = control_character(text.replace("\x0c", " ") if webvtt else text)
    if control is not None:
        # NUL cannot be stored in PostgreSQL text.
        line, char = control
        raise TranscriptError(
            f"line {line}: the control character {char} cannot be stored; remove it "
            "(was the file cut from a binary file?)"
        )
    stripped = text.lstrip()
    if webvtt:
        segments = _parse_webvtt(text, warnings)
        return Transcript(TranscriptFormat.WEBVTT, segments, warnings.result(), encoding)
    if stripped.startswith(("{", "[")):
        return Transcript(
            TranscriptFormat.JSON, tuple(_parse_json(text)), warnings.result(), encoding
        )
    first = stripped.split("\n", 1)[0].strip()
    if first.isascii() and first.isdigit() or "-->" in first:
        segments = _parse_srt(text)
        return Transcript(TranscriptFormat.SRT, segments, warnings.result(), encoding)
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
        "cue number or a timing, Podcasting 2.0 JSON with '{'"
    )


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig", "UTF-8"),
    (b"\xff\xfe", "utf-16-le", "UTF-16"),
    (b"\xfe\xff", "utf-16-be", "UTF-16"),
)


def _decode(data: bytes) -> tuple[str, str, str]:
    """The text of `data`, the encoding it was read in and, unless it is UTF-8, a note saying
    why: the byte order mark's encoding, UTF-16 when every other byte of the start is NUL,
    else UTF-8, else Windows-1252 (what old Windows subtitle tools write)."""
    for mark, codec, name in _BOMS:
        if data.startswith(mark):
            note = "" if name == "UTF-8" else f"read as {name}, as its byte order mark says"
            return _decoded(data[len(mark) :], codec, name), name, note
    head = data[:200]
    for codec, zeros, others in (
        ("utf-16-le", head[1::2], head[0::2]),
        ("utf-16-be", head[0::2], head[1::2]),
    ):
        if len(head) >= 4 and zeros.count(0) >= len(head) // 4 and 0 not in others:
            name = "UTF-16"
            note = f"read as {name} ({codec[-2:].upper()}): the file has no byte order mark"
            return _decoded(data, codec, name), name, note
    try:
        return data.decode("utf-8"), "UTF-8", ""
    except UnicodeDecodeError:
        pass
    name = "Windows-1252"
    note = (
        f"read as {name}, since the file is not UTF-8: check its accented letters and "
        "quotation marks"
    )
    return _decoded(data, "cp1252", name), name, note


def _decoded(data: bytes, codec: str, name: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        if codec.startswith("utf-16"):
            line = data[: exc.start].decode(codec, "replace").count("\n") + 1
        else:
            line = data.count(b"\n", 0, exc.start) + 1
        if codec.startswith("utf-16"):
            # UTF-16 fails on a pair of bytes (or a lone one at the end), not on one byte.
            what = f"the bytes from offset {exc.start:,} are not {name} ({exc.reason})"
        else:
            what = f"byte {data[exc.start]:#04x} is neither UTF-8 nor {name}"
        raise TranscriptError(
            f"line {line}: {what}; is this a text file? Save the transcript as UTF-8"
        ) from None


def _clock(seconds: float) -> str:
    whole, millis = divmod(round(seconds * 1000), 1000)
    hours, rest = divmod(whole, 3600)
    return f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}.{millis:03d}"


def _clean(text: str) -> str:
    """Words as stored: entities read, invisible characters gone, whitespace collapsed."""
    if "&" in text:
        text = html.unescape(text)
    return " ".join(strip_invisible(text).split())


def _name(text: str) -> str:
    return " ".join(strip_invisible(text).split())


# Hours beyond this many digits are no episode's (and int() refuses 4,300 of them).
_MAX_HOUR_DIGITS = 6

# ---------------------------------------------------------------- WebVTT

_ASCII_SPACE = " \t\n\x0c\r"
_DIGITS = re.compile(r"[0-9]*")


def _parse_webvtt(text: str, warnings: _Warnings) -> tuple[Segment, ...]:
    """The WebVTT file parsing algorithm, line by line (W3C WebVTT, "WebVTT file parsing")."""
    lines = text.split("\n")
    header = lines[0]
    if header != "WEBVTT" and not header.startswith(("WEBVTT ", "WEBVTT\t")):
        raise TranscriptError(
            f"line 1: a WebVTT file starts with a line 'WEBVTT', not {_quote(header)}"
        )
    index = 1
    if index < len(lines) and lines[index] != "":
        # The header's own block (metadata such as "Kind: captions"); a timing line ends it.
        index = _Block.collect(lines, index, in_header=True, seen_cue=False).next_index
    cues = _Cues(warnings)
    seen_cue = False
    blocks = 0
    while True:
        while index < len(lines) and lines[index] == "":
            index += 1
        if index >= len(lines):
            break
        blocks += 1
        if blocks > MAX_SEGMENTS:
            # Skipped blocks cost as much as cues to read.
            raise _too_many(f"line {index + 1}", "blocks (cues, comments and skipped text)")
        block = _Block.collect(lines, index, in_header=False, seen_cue=seen_cue)
        index = block.next_index
        if block.cue is not None:
            seen_cue = True
            cues.add(block.cue)
        else:
            block.warn_skipped(warnings)
    return cues.in_time_order()


@dataclass
class _Cue:
    line: int  # 1-based, of its timing
    start: float
    end: float
    text_line: int
    text: str


@dataclass
class _Block:
    """One block of a WebVTT file as "collect a WebVTT block" reads it."""

    first_line: int
    next_index: int
    cue: _Cue | None = None
    kind: str = ""  # "style", "region", "bad timing" or "" (comment, header, stray text)
    first: str = ""
    problem: str = ""
    problem_line: int = 0
    after_cue: bool = False

    @classmethod
    def collect(cls, lines: list[str], index: int, *, in_header: bool, seen_cue: bool) -> _Block:
        block = cls(first_line=index + 1, next_index=index, after_cue=seen_cue)
        buffer: list[str] = []
        count = 0
        seen_arrow = False
        timing: tuple[int, float, float] | None = None
        block.first = lines[index]
        while index < len(lines):
            line = lines[index]
            count += 1
            if "-->" in line:
                if in_header or not (count == 1 or (count == 2 and not seen_arrow)):
                    # The line starts the next block: a cue written straight after another
                    # cue's text (as YouTube does), or after the header.
                    break
                seen_arrow = True
                index += 1
                parsed = _vtt_timing(line)
                if isinstance(parsed, str):
                    timing = None
                    block.kind, block.problem, block.problem_line = "bad timing", parsed, index
                    block.first = line
                else:
                    timing = (index, *parsed)
                    buffer = []
                continue
            index += 1
            if line == "":
                break
            if not in_header and count == 2 and not seen_cue and len(buffer) == 1:
                for keyword in ("STYLE", "REGION"):
                    if buffer[0].startswith(keyword) and not buffer[0][len(keyword) :].strip(
                        _ASCII_SPACE
                    ):
                        block.kind = keyword.lower()
                        buffer = []
                        break
            buffer.append(line)
        block.next_index = index
        if timing is not None:
            line_number, start, end = timing
            block.cue = _Cue(line_number, start, end, line_number + 1, "\n".join(buffer))
        return block

    def warn_skipped(self, warnings: _Warnings) -> None:
        """Say what a block that is not a cue loses, when it loses words."""
        first = self.first.strip(_ASCII_SPACE)
        keyword = first.split(maxsplit=1)[0] if first else ""
        if self.kind == "bad timing":
            warnings.add(
                f"line {self.problem_line}: {_quote(first)} is not a cue timing ({self.problem}); "
                "the cue is skipped, as players skip it. Write '00:25:38.000 --> 00:25:42.500'"
            )
        elif self.kind or keyword == "NOTE":
            return  # a style sheet or region before the first cue, or a comment
        elif keyword in ("STYLE", "REGION") and self.after_cue:
            warnings.add(
                f"line {self.first_line}: a {keyword} block after the first cue is ignored, "
                "as players ignore it"
            )
        elif keyword not in ("STYLE", "REGION"):
            warnings.add(
                f"line {self.first_line}: {_quote(first)} belongs to no cue (no timing line "
                "before it); skipped, as players skip it. Is a timing line missing?"
            )


def _vtt_timing(line: str) -> tuple[float, float] | str:
    """ "Collect WebVTT cue timings and settings": the start and end, or why not."""
    position = _skip_space(line, 0)
    start = _vtt_timestamp(line, position)
    if isinstance(start, str):
        return f"the start time {start}"
    seconds_start, position = start
    position = _skip_space(line, position)
    if line[position : position + 3] != "-->":
        return "'-->' must follow the start time"
    position = _skip_space(line, position + 3)
    end = _vtt_timestamp(line, position)
    if isinstance(end, str):
        return f"the end time {end}"
    return seconds_start, end[0]


def _skip_space(line: str, position: int) -> int:
    while position < len(line) and line[position] in _ASCII_SPACE:
        position += 1
    return position


def _digits(line: str, position: int) -> str:
    match = _DIGITS.match(line, position)
    return match.group() if match else ""


def _vtt_timestamp(line: str, position: int) -> tuple[float, int] | str:
    """ "Collect a WebVTT timestamp": seconds and the position after it, or why not."""
    first = _digits(line, position)
    if not first:
        return "is missing"
    if len(first) > _MAX_HOUR_DIGITS:
        return f"has {len(first):,} digits before its first ':'"
    position += len(first)
    hours_first = len(first) != 2 or int(first) > 59
    if line[position : position + 1] != ":":
        return "needs ':' after its first number"
    second = _digits(line, position + 1)
    if len(second) != 2:
        return "needs two digits after ':'"
    position += 1 + len(second)
    if hours_first or line[position : position + 1] == ":":
        if line[position : position + 1] != ":":
            return "has hours but no seconds"
        third = _digits(line, position + 1)
        if len(third) != 2:
            return "needs two digits of seconds"
        position += 1 + len(third)
        hours, minutes, seconds = int(first), int(second), int(third)
    else:
        hours, minutes, seconds = 0, int(first), int(second)
    if line[position : position + 1] != ".":
        return "needs '.' and three digits of milliseconds after the seconds"
    millis = _digits(line, position + 1)
    if len(millis) != 3:
        return "needs exactly three digits of milliseconds"
    position += 1 + len(millis)
    if minutes > 59 or seconds > 59:
        return f"has {max(minutes, seconds)} {'minutes' if minutes > 59 else 'seconds'}"
    return hours * 3600 + minutes * 60 + seconds + int(millis) / 1000, position


class _Cues:
    """The cues of a WebVTT file, checked and split into segments as the parser meets them, so
    warnings come in the file's order."""

    def __init__(self, warnings: _Warnings) -> None:
        self.warnings = warnings
        self.segments: list[Segment] = []
        self.latest: _Cue | None = None
        self.tags_left = MAX_TAGS

    def add(self, cue: _Cue) -> None:
        if cue.end < cue.start:
            self.warnings.add(
                f"line {cue.line}: the cue ends at {_clock(cue.end)}, before it starts "
                f"({_clock(cue.start)}); skipped, as players skip it"
            )
            return
        latest = self.latest
        if latest is not None and cue.start < latest.start:
            self.warnings.add(
                f"line {cue.line}: the cue starts at {_clock(cue.start)}, before the cue at line "
                f"{latest.line} ({_clock(latest.start)}); put in time order"
            )
        else:
            self.latest = cue
        for speaker, words in _cue_text(cue.text, cue.text_line, self):
            self.segments.append(Segment(cue.start, cue.end, speaker, words, cue.line))
            if len(self.segments) > MAX_SEGMENTS:
                raise _too_many(f"line {cue.line}")

    def in_time_order(self) -> tuple[Segment, ...]:
        # A stable sort: segments of one cue, and cues at one time, keep the file's order.
        return tuple(sorted(self.segments, key=lambda segment: segment.start))


# A tag runs from '<' to the next '>' or the end of the cue text, whatever it holds: every
# state of the WebVTT cue text tokenizer ends a tag there.
_TOKEN = re.compile(r"<([^>]*)(>?)")
_CUE_TAGS = frozenset({"c", "i", "b", "u", "ruby", "rt", "v", "lang"})
_TAG_NAME = re.compile(r"[^ \t\n\x0c\r.]*")
_ANNOTATION = re.compile(r"[ \t\n\x0c\r]")


def _cue_text(text: str, first_line: int, cues: _Cues) -> Iterator[tuple[str, str]]:
    """A cue's words, split where the speaker changes: "the WebVTT cue text parsing rules"
    build a tree of spans, and a word's speaker is its innermost voice span's (`<v Name>`), or
    nobody outside every voice span. Tags other than the cue text tags are ignored, their
    words kept; what a browser drops (a '<' that opens no tag, and what follows it up to '>')
    is dropped and named."""
    # The open spans, innermost last, each with the voice speaking inside it.
    open_tags: list[tuple[str, str]] = []
    speaker = ""
    run: list[str] = []
    position = 0
    warnings = cues.warnings
    for token in _TOKEN.finditer(text):
        cues.tags_left -= 1
        if cues.tags_left < 0:
            line = first_line + text.count("\n", 0, token.start())
            raise TranscriptError(
                f"line {line}: more than {MAX_TAGS:,} tags; an episode's transcript has far "
                "fewer (word-by-word captions of a two-hour one, about 60,000)"
            )
        run.append(text[position : token.start()])
        position = token.end()
        content, closed = token.group(1), bool(token.group(2))
        name = _TAG_NAME.match(content).group()  # type: ignore[union-attr]
        if not closed or not name or (name[0].isdigit() and not _is_timestamp(content)):
            # What a browser reads as a tag that is none: it drops the '<' and all after it
            # up to '>' (or to the end of the cue).
            line = 0 if warnings.full else first_line + text.count("\n", 0, token.start())
            lost = _quote("<" + content) + ("" if closed else " (to the end of the cue)")
            warnings.add(
                f"line {line}: a '<' that opens no tag; players drop it and what follows up to "
                f"'>', so {lost} is dropped. Write &lt; for the character itself"
            )
        if content.startswith("/"):
            if open_tags and open_tags[-1][0] == content[1:]:
                open_tags.pop()
            elif content == "/ruby" and open_tags and open_tags[-1][0] == "rt":
                del open_tags[-2:]
        elif name in _CUE_TAGS and (name != "rt" or (open_tags and open_tags[-1][0] == "ruby")):
            voice = open_tags[-1][1] if open_tags else ""
            if name == "v":
                parts = _ANNOTATION.split(content, maxsplit=1)
                voice = parts[1] if len(parts) == 2 else ""
            open_tags.append((name, voice))
        # Anything else (a karaoke timestamp <00:01.500>, an unknown tag) is ignored.
        voice = open_tags[-1][1] if open_tags else ""
        if voice != speaker:
            words = _clean("".join(run))
            if words:
                yield _name(speaker), words
            run = []
            speaker = voice
    run.append(text[position:])
    words = _clean("".join(run))
    if words:
        yield _name(speaker), words


def _is_timestamp(content: str) -> bool:
    parsed = _vtt_timestamp(content, 0)
    return not isinstance(parsed, str) and parsed[1] == len(content)


# ---------------------------------------------------------------- SRT

# SRT always has hours and a comma, though many tools write a full stop, which we accept.
_SRT_TIME = r"(\d+):([0-5]\d):([0-5]\d)[,.](\d{3})"
_SRT_TIMING = re.compile(rf"^{_SRT_TIME}[ \t]+-->[ \t]+{_SRT_TIME}(?:[ \t]+.*)?$")
# Tags SRT writers use (<i>, <font color=...>, <c.yellow>, <span ...>) and the ASS override
# codes some put in ({\an8}): formatting, never words.
_SRT_TAG = re.compile(r"</?[A-Za-z][^<>]*>|\{\\[^{}]*\}")


def _seconds(hours: str, minutes: str, seconds: str, millis: str) -> float:
    return int(hours) * 3600 + int(minutes) * 60 + int(seconds) + int(millis) / 1000


def _blocks(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Blocks of non-blank lines, each with the 1-based number of its first line."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(lines, start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _no_arrow(lines: list[str], first_line: int) -> None:
    for number, line in enumerate(lines, start=first_line):
        if "-->" in line:
            raise TranscriptError(
                f"line {number}: '-->' inside a cue's text; is a blank line missing before "
                "this cue?"
            )


def _parse_srt(text: str) -> tuple[Segment, ...]:
    cues: list[tuple[int, float, float, str]] = []
    previous: float | None = None
    for number, block in _blocks(text.split("\n")):
        head = block[0].strip()
        # Cue numbers are optional in practice: many tools write the timing first.
        timing_at = 0 if "-->" in head else 1
        if timing_at and not (head.isascii() and head.isdigit()):
            raise TranscriptError(
                f"line {number}: expected a cue number or a timing, found {_quote(head)}; "
                "is a blank line missing inside a cue, or one missing before it?"
            )
        where = number + timing_at
        if timing_at >= len(block):
            raise TranscriptError(f"line {where}: cue {head} has no timing line")
        line = block[timing_at].strip()
        timing = _SRT_TIMING.match(line)
        if timing is None:
            raise TranscriptError(
                f"line {where}: {_quote(line)} is not a cue timing; write "
                "'00:25:38,000 --> 00:25:42,500'"
            )
        groups = timing.groups()
        if max(len(groups[0]), len(groups[4])) > _MAX_HOUR_DIGITS:
            raise TranscriptError(
                f"line {where}: a time with {max(len(groups[0]), len(groups[4])):,} digits of "
                "hours is not a cue timing; write '00:25:38,000 --> 00:25:42,500'"
            )
        start, end = _seconds(*groups[:4]), _seconds(*groups[4:])
        if end < start:
            raise TranscriptError(
                f"line {where}: ends at {_clock(end)}, before it starts ({_clock(start)})"
            )
        if previous is not None and start < previous:
            raise TranscriptError(
                f"line {where}: starts at {_clock(start)}, before the cue before it "
                f"({_clock(previous)}); cues must be in time order"
            )
        previous = start
        _no_arrow(block[timing_at + 1 :], where + 1)
        words = strip_invisible(_SRT_TAG.sub("", " ".join(block[timing_at + 1 :])))
        cues.append((where, start, end, " ".join(words.split())))
        if len(cues) > MAX_SEGMENTS:
            raise _too_many(f"line {where}")
    return tuple(_srt_speakers(cues))


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


def _srt_speakers(cues: list[tuple[int, float, float, str]]) -> list[Segment]:
    labels = [_SPEAKER.match(text) for _, _, _, text in cues]
    counts: dict[str, int] = {}
    for label in labels:
        if label:
            counts[label.group(1)] = counts.get(label.group(1), 0) + 1
    segments: list[Segment] = []
    speaker = ""
    for (line, start, end, text), label in zip(cues, labels, strict=True):
        if label:
            name = label.group(1)
            if counts[name] > 1 or " " in name.strip() or (name.isupper() and len(name) > 1):
                speaker, text = name.strip(), label.group(2)
        if text:
            segments.append(Segment(start, end, speaker, text, line))
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
    if len(raw) > MAX_SEGMENTS:
        raise _too_many(f"segment {MAX_SEGMENTS}")
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
        rows.append((start, end, _name(speaker), _clean(body)))
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
