"""The pages the scale benches load, as scale.py and inprocess.py both name them.

`picked` is what scale.py's PICK chose in the glossary being served; `home` is its
index page, whose `S` link gives the letter page.
"""

from __future__ import annotations

import re

# The entries' sitemap page loaded is the second: a glossary needs more entries than this.
SITEMAP_PAGE = 500


def pages(picked: dict[str, str], home: str) -> dict[str, str]:
    letter = re.search(r'href="([^"#]*)#letter-s"', home)
    return {
        "trivial": "/bench/trivial/",
        "entry": picked["entry"],
        "index": "/",
        "letter": (letter.group(1) if letter and letter.group(1) else "/"),
        "tag": picked["tag"],
        "episode": picked["episode"],
        "person": picked["person"],
        "organisation": picked["organisation"],
        "search": picked["search"],
        "api-list": "/api/v1/entries/",
        "api-entry": picked["api-entry"],
        "feed": "/feed/",
        "sitemap": "/sitemap-entries.xml?p=2",  # entries SITEMAP_PAGE + 1 on
    }
