"""Public addresses, reversed once per process and remembered.

A page with fifty quotes asks for the same few paths many times; Django's
`reverse` costs more than the rest of such a page. Settings changes in tests
(another URLconf or script prefix) forget what was remembered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, reverse


@functools.lru_cache(maxsize=8192)
def _reverse(prefix: str, name: str, args: tuple[Any, ...]) -> str:
    return reverse(name, args=args)


def path_for(name: str, *args: Any) -> str:
    """`reverse`, remembered per script prefix."""
    return _reverse(get_script_prefix(), name, args)


def paths_for(name: str) -> Callable[..., str]:
    """`path_for` for one route under the current script prefix, read once: for a page
    that makes fifty addresses of one kind (reading the prefix costs ten times the rest)."""
    prefix = get_script_prefix()

    def path(*args: Any) -> str:
        return _reverse(prefix, name, args)

    return path


def absolute(path: str) -> str:
    """An address on the public site, from SITE_URL whatever host the request came to."""
    return f"{settings.SITE_URL}{path}"


@receiver(setting_changed)
def forget_paths(**_: Any) -> None:
    _reverse.cache_clear()
