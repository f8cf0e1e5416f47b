"""Text from outside the desk: JSON that reads whole or fails with one error, and the
control characters no stored text may hold.

Every door that reads JSON someone else wrote (a transcript, an export) goes through
`load_json`, so a hostile file cannot turn the parser's own failures (a RecursionError
from `[[[[...`, a ValueError from a number of 5,000 digits) into a server error or a
traceback; each caller turns `InboundError` into its own error with the same message.

`control_character` finds the first C0 control character other than tab, line feed and
carriage return. NUL cannot be stored in PostgreSQL text at all; the others have no
business in a transcript or an entry and would only surface later, somewhere harder
to trace.

`strip_invisible` removes the characters that change how text *looks* without being
seen: the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
U+2066-U+2069), the zero-width and directional marks (U+200B-U+200F) and the byte
order mark (U+FEFF). Text written by someone outside the desk (a cited page's excerpt,
a feed's titles, a transcript's passages, a person's name from a feed) passes through it
before it is stored for readers, so a right-to-left override cannot make a page show
words that are not the words an editor read.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Far deeper than anything the desk writes or reads (an export's version document sits
# about 15 levels down), and shallow enough that whatever later walks the value
# (json.dumps into the database, repr in an error message) stays clear of Python's
# recursion limit.
MAX_DEPTH = 100

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


class InboundError(ValueError):
    """The JSON cannot be read; the message names the line where it can."""


def load_json(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads(text)`, refusing what it cannot read and anything nested deeper than
    `max_depth` arrays and objects, always with `InboundError`."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InboundError(f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        # The parser recursed once per bracket; the stack is unwound here.
        raise _too_deep(text, max_depth) from None
    except ValueError as exc:  # e.g. an integer longer than int() reads (4,300 digits)
        raise InboundError(f"the JSON cannot be read: {exc}") from None
    if _depth_exceeds(value, max_depth):
        raise _too_deep(text, max_depth)
    return value


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _too_deep(text: str, limit: int) -> InboundError:
    """The error naming the line where the nesting first goes deeper than `limit`."""
    depth, line, in_string, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                break
        elif char in "]}":
            depth -= 1
    return InboundError(
        f"line {line}: the JSON is nested too deeply (more than {limit} arrays or objects "
        "inside each other)"
    )


def control_character(text: str) -> tuple[int, str] | None:
    """The line (counted as `str.splitlines` counts) and description of the first control
    character other than tab, line feed and carriage return in `text`, or None."""
    found = _CONTROL.search(text)
    if found is None:
        return None
    line = len((text[: found.start()] + "x").splitlines())
    return line, _describe(found.group())


def _describe(char: str) -> str:
    """'U+0000 (NUL)', 'U+001B'."""
    return f"U+{ord(char):04X}" + (" (NUL)" if char == "\x00" else "")


def strip_invisible(text: str) -> str:
    """`text` without bidirectional controls, zero-width characters and byte order marks."""
    return _INVISIBLE.sub("", text)
