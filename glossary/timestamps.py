"""Episode offsets: stored as whole seconds, written by people as 25:38 or 1:02:03."""

import re

_CLOCK = re.compile(r"^(?:([0-9]+):)?([0-9]+):([0-9]{2})$")
# No real timestamp is longer (20 digits of seconds is far past any episode); the
# limit also keeps int() clear of its own limit on digits.
_MAX_LENGTH = 20
# The largest offset the database column holds (a PositiveIntegerField): 596523:14:07.
MAX_SECONDS = 2**31 - 1


class TimestampError(ValueError):
    """The text is not an offset we can read; the message says why."""


def parse_timestamp(value: str | int) -> int:
    """Read `1538`, `25:38` or `1:02:03` as whole seconds."""
    if isinstance(value, int):
        seconds = value
    else:
        text = str(value).strip()
        if not text:
            raise TimestampError("Enter a timestamp such as 25:38, 1:02:03 or 1538.")
        if len(text) > _MAX_LENGTH:
            raise TimestampError(
                f"“{text[:_MAX_LENGTH]}…” is too long for a timestamp; write 25:38, 1:02:03 "
                "or seconds like 1538."
            )
        if text.startswith("-"):
            raise TimestampError(f"“{text}” is negative; a timestamp counts from the start.")
        if text.isascii() and text.isdigit():
            seconds = int(text)
        else:
            match = _CLOCK.match(text)
            if not match:
                raise TimestampError(
                    f"“{text}” is not a timestamp; write 25:38, 1:02:03 or seconds like 1538."
                )
            hours, minutes, secs = match.groups()
            if int(secs) >= 60:
                raise TimestampError(f"“{text}” has {secs} seconds; seconds go up to 59.")
            if hours is not None and int(minutes) >= 60:
                raise TimestampError(f"“{text}” has {minutes} minutes; minutes go up to 59.")
            seconds = int(hours or 0) * 3600 + int(minutes) * 60 + int(secs)
    if seconds < 0:
        raise TimestampError("A timestamp cannot be negative.")
    if seconds > MAX_SECONDS:
        raise TimestampError(
            f"{seconds} seconds is past the end of any episode (at most {MAX_SECONDS})."
        )
    return seconds


def format_timestamp(seconds: int) -> str:
    """25:38 under an hour, 1:02:03 past it, as podcast apps show them."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def iso_duration(seconds: int) -> str:
    """ISO 8601 duration for <time datetime>: PT25M38S."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    parts = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M"), (secs, "S")) if n)
    return f"PT{parts or '0S'}"
