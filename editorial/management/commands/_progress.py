"""A one-line progress bar on stderr for the exchange commands (redrawn only on a terminal)."""

from __future__ import annotations

from typing import Any


class Bar:
    def __init__(self, stream: Any, enabled: bool = True) -> None:
        self.stream = stream
        self.enabled = enabled
        self.tty = bool(getattr(stream, "isatty", lambda: False)())

    def __call__(self, name: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if not self.tty and done < total:
            return  # in a log, one line per table instead of hundreds of redraws
        width = 24
        filled = width if total == 0 else int(width * done / total)
        line = f"{name:<26} [{'#' * filled}{'-' * (width - filled)}] {done}/{total}"
        if self.tty:
            self.stream.write("\r" + line + ("\n" if done >= total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
