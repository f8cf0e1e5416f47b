"""Public addresses, reversed once per process and remembered.

A page with fifty quotes asks for the same few paths many times; Django's
`reverse` costs more than the rest of such a page. Settings changes in tests
(another URLconf or script prefix) forget what was remembered.

A show's own site (glossary.show_site) is served under a script prefix of its own
(`/shows/<slug>/`) or at the root of its own host: `current_show` names it for the
request, `absolute` writes addresses on its origin, and `localise` moves the entry
links of rows rendered once at publish (for the network) onto it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ShowSite:
    """The show whose public site a request is served from."""

    show_id: int
    slug: str
    name: str
    # Where its pages live: "/shows/<slug>/" on the network's host, "/" on its own host.
    prefix: str
    # Scheme and host its absolute addresses are written on.
    origin: str


_current: ContextVar[ShowSite | None] = ContextVar("show_site", default=None)


def current_show() -> ShowSite | None:
    """The show site the current request is served from; None on the network's site."""
    return _current.get()


def serve_as(site: ShowSite | None) -> Any:
    """Make `site` the current one; returns the token `_current.reset` takes back."""
    return _current.set(site)


def end_serving(token: Any) -> None:
    _current.reset(token)


def site_name() -> str:
    """The public site's name: the show's on its site, the network's elsewhere."""
    site = _current.get()
    return site.name if site else settings.PUBLIC_SITE_NAME


def absolute(path: str) -> str:
    """An address on the public site, from SITE_URL whatever host the request came to (a
    show's own host on its site)."""
    site = _current.get()
    return f"{site.origin if site else settings.SITE_URL}{path}"


def localise(html: str) -> str:
    """Rows and pages rendered at publish for the network, with their entry links moved
    onto the current show's site (unchanged on the network's). Only links to entry pages
    move: every other page (a person, an episode) is the network's, and stays there."""
    site = _current.get()
    if site is None:
        return html
    html = html.replace(f"{settings.SITE_URL}/glossary/", f"{site.origin}{site.prefix}glossary/")
    if site.prefix != "/":
        html = html.replace('href="/glossary/', f'href="{site.prefix}glossary/')
    return html


@receiver(setting_changed)
def forget_paths(**_: Any) -> None:
    _reverse.cache_clear()
