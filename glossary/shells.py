"""Page shells: a public page's template rendered once per process, filled per request.

The template engine costs more than everything else a list page does per request
(bench/README.md). A page's template is rendered once with a placeholder for each
value that changes (`slots`), split around them, and each request joins the static
parts with its values: HTML the view built from rows rendered at publish
(glossary.listing_rows) and values it escaped itself. Slot variables are used plainly
in the templates (no filters, no tests but "is it there"), so the placeholder stands
where the value will.

Settings changes (tests that change the site name or the URLconf) forget the
rendered shells.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from glossary.context_processors import site as site_context
from glossary.paths import ShowSite, current_show


class Shell:
    """`template` rendered once with `slots` as placeholders and `fixed` as its context.

    A fixed value may be a function, called when the shell is rendered (so a value read
    from the settings follows them).
    """

    def __init__(self, template: str, slots: tuple[str, ...], **fixed: Any) -> None:
        self.template, self.slots, self.fixed = template, slots, fixed
        # Per site: the network's (None) and each show's (glossary.paths.current_show).
        self._parts: dict[ShowSite | None, tuple[str, ...]] = {}
        _shells.append(self)

    def _render(self) -> tuple[str, ...]:
        marks = {name: mark_safe(f"\x00{name}\x00") for name in self.slots}  # noqa: S308
        html = render_to_string(
            self.template,
            # render_to_string has no request to run the context processors for.
            {
                **site_context(None),
                **{k: v() if callable(v) else v for k, v in self.fixed.items()},
                **marks,
            },
        )
        parts = tuple(re.split("\x00(" + "|".join(map(re.escape, self.slots)) + ")\x00", html))
        missing = set(self.slots) - set(parts[1::2])
        if missing:
            raise ValueError(f"{self.template} does not show {sorted(missing)} plainly.")
        return parts

    def fill(self, **values: str) -> str:
        """The page: every slot's value must be given, as HTML (escaped by the caller)."""
        site = current_show()
        parts = self._parts.get(site)
        if parts is None:
            parts = self._parts[site] = self._render()
        # Even positions are the template's static text, odd ones the slot names.
        return "".join(part if i % 2 == 0 else values[part] for i, part in enumerate(parts))

    def forget(self) -> None:
        self._parts = {}


_shells: list[Shell] = []


@receiver(setting_changed)
def _forget_rendered_shells(**_: Any) -> None:
    for shell in _shells:
        shell.forget()
