"""Small helpers shared by the link checker tests."""

from __future__ import annotations

from typing import Any

from editorial.linkcheck.fetch import CheckResult, FetchOptions
from editorial.linkcheck.service import run_checks


def check(*urls: str, **overrides: Any) -> list[CheckResult]:
    """Run the real checker (settings-driven options) against `urls`."""
    return run_checks(urls, FetchOptions.from_settings(**overrides))


def check_one(url: str, **overrides: Any) -> CheckResult:
    return check(url, **overrides)[0]
