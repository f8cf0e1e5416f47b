"""The outcome vocabulary of one check, and the rules that pick an outcome.

One check ends in exactly one of these outcomes (docs/linkcheck.md explains
each to editors). A source's *state* is a different thing and follows from a
history of outcomes; see `editorial.linkcheck.state`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlsplit


class Outcome(StrEnum):
    OK = "ok"
    MOVED = "moved"
    BROKEN = "broken"
    BLOCKED = "blocked"
    RATE_LIMITED = "rate_limited"
    TRANSIENT = "transient"
    TLS_ERROR = "tls_error"
    REFUSED = "refused"
    # The page answered 2xx with no text to read: emptied, or built by scripts the
    # checker does not run. Not a failure of the address (see state.apply_result).
    EMPTY = "empty"


class ErrorKind(StrEnum):
    """What went wrong below HTTP, as the fetcher saw it."""

    TIMEOUT = "timeout"
    RESET = "reset"
    DNS_NOT_FOUND = "dns_not_found"
    DNS_ERROR = "dns_error"
    CONNECTION_REFUSED = "connection_refused"
    CONNECTION_ERROR = "connection_error"
    TLS = "tls"
    REDIRECT_LOOP = "redirect_loop"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    INVALID_URL = "invalid_url"
    GUARD = "guard"


PERMANENT_REDIRECTS = frozenset({301, 308})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
GONE = frozenset({404, 410})
BLOCKED = frozenset({401, 402, 403, 451, 999})
# 408 and 425 say "try again", not "this page is gone".
TRANSIENT_4XX = frozenset({408, 425})

# An outcome that counts towards a source being declared broken.
FAILURES = frozenset({Outcome.BROKEN, Outcome.TRANSIENT})

_NOT_FOUND_PATH = re.compile(
    r"(^|/)(404|not[-_]?found|page[-_]?not[-_]?found|error404)(\.\w+)?/?$", re.I
)


@dataclass
class Attempt:
    """What one attempt at a URL saw, before it is given an outcome."""

    url: str
    status: int | None = None
    final_url: str = ""
    redirects: list[dict[str, object]] = field(default_factory=list)
    error_kind: ErrorKind | None = None
    error: str = ""
    retry_after: float | None = None
    challenge: bool = False
    # A 2xx GET whose body was read and held no main text (or was empty).
    empty: bool = False


def _is_site_root_redirect(original: str, final: str) -> bool:
    """A deep link answered by the home page is a soft 404 (the page is gone)."""
    before, after = urlsplit(original), urlsplit(final)
    return before.path.strip("/") != "" and after.path.strip("/") == "" and not after.query


def classify(attempt: Attempt) -> Outcome:
    kind = attempt.error_kind
    if kind is not None:
        if kind is ErrorKind.GUARD:
            return Outcome.REFUSED
        if kind is ErrorKind.TLS:
            return Outcome.TLS_ERROR
        if kind in (
            ErrorKind.DNS_NOT_FOUND,
            ErrorKind.CONNECTION_REFUSED,
            ErrorKind.REDIRECT_LOOP,
            ErrorKind.TOO_MANY_REDIRECTS,
            ErrorKind.INVALID_URL,
        ):
            return Outcome.BROKEN
        return Outcome.TRANSIENT

    status = attempt.status or 0
    if attempt.challenge or status in BLOCKED:
        return Outcome.BLOCKED
    if status == 429 or (status == 503 and attempt.retry_after is not None):
        return Outcome.RATE_LIMITED
    if status >= 500 or status in TRANSIENT_4XX:
        return Outcome.TRANSIENT
    if status in GONE or status >= 400:
        return Outcome.BROKEN
    if attempt.redirects:
        if _is_site_root_redirect(attempt.url, attempt.final_url):
            return Outcome.BROKEN
        if _NOT_FOUND_PATH.search(urlsplit(attempt.final_url).path):
            return Outcome.BROKEN
    # Before "moved": an empty end page is no address to suggest.
    if attempt.empty and 200 <= status < 300:
        return Outcome.EMPTY
    if attempt.redirects and attempt.redirects[0].get("status") in PERMANENT_REDIRECTS:
        return Outcome.MOVED
    if 200 <= status < 400:
        return Outcome.OK
    return Outcome.TRANSIENT
