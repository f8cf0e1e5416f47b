"""Read a rendered admin form the way a browser would submit it."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any


class _FormParser(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.data: dict[str, Any] = {}
        self._textarea: str | None = None
        self._select: str | None = None
        self._select_first: str | None = None
        self._select_chosen = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("id") == self.form_id:
            self.inside = True
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("submit", "button", "file"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self.data[name] = a.get("value", "on" if kind == "checkbox" else "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""
        elif tag == "select" and name:
            self._select, self._select_first, self._select_chosen = name, None, False
        elif tag == "option" and self._select:
            value = a.get("value", "")
            if self._select_first is None:
                self._select_first = value
            if "selected" in a:
                self.data[self._select] = value
                self._select_chosen = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.inside:
            self.inside = False
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select" and self._select:
            if not self._select_chosen:
                self.data[self._select] = self._select_first or ""
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            # The HTML spec drops one newline right after <textarea>.
            value = self.data[self._textarea] + data
            self.data[self._textarea] = value.removeprefix("\n")


def form_data(html: str, form_id: str = "entry_form") -> dict[str, Any]:
    parser = _FormParser(form_id)
    parser.feed(html)
    assert parser.data, f"no form #{form_id} on the page"
    return parser.data
