"""The site's colours meet WCAG 2.2 AA contrast: 4.5:1 for text, 3:1 for borders and focus."""

import re
from pathlib import Path

import pytest
from django.conf import settings

BASE = (Path(settings.BASE_DIR) / "templates" / "base.html").read_text()
VARS = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", BASE))
WHITE, DISCLOSURE = "#ffffff", "#fdf6e3"


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(
    ("foreground", "background", "minimum"),
    [
        (VARS["text"], WHITE, 4.5),
        (VARS["muted"], WHITE, 4.5),
        (VARS["link"], WHITE, 4.5),
        (VARS["visited"], WHITE, 4.5),
        (VARS["text"], VARS["soft"], 4.5),
        (VARS["muted"], VARS["soft"], 4.5),
        (VARS["link"], VARS["soft"], 4.5),
        (VARS["link"], DISCLOSURE, 4.5),
        (VARS["text"], DISCLOSURE, 4.5),
        ("#595959", VARS["soft"], 4.5),  # letters without entries
        (WHITE, "#0b57a4", 4.5),  # the search button
        (VARS["rule"], WHITE, 3.0),  # quote rule and input borders
        ("#1a5fb4", WHITE, 3.0),  # focus outline
    ],
)
def test_colour_pairs_meet_wcag_aa(foreground, background, minimum):
    assert contrast(foreground, background) >= minimum
    # Guard against the list going stale: each literal colour is still in the style sheet.
    for colour in (foreground, background):
        assert colour == WHITE or colour.lower() in BASE.lower()
