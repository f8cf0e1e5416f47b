"""Making an entry live in a test's set-up, without the workflow's door.

A test of what readers see often needs entries already live, and does not test who
may publish them: `make_live_unchecked` makes one live with no role, state, publish
check or second person, as `glossary.publishing.make_live` does. Everything outside
the tests publishes through `editorial.workflow` (tests/workflow/test_one_door.py
holds that); a test of the workflow's checks publishes through it too.
"""

from __future__ import annotations

import datetime
from typing import Any

from glossary import publishing
from glossary.models import Entry, EntryVersion


def make_live_unchecked(
    entry: Entry,
    *,
    user: Any = None,
    version: EntryVersion | None = None,
    material: bool = True,
    correction_note: str = "",
    comment: str = "",
    now: datetime.datetime | None = None,
) -> EntryVersion:
    """Make `version` (by default a fresh snapshot of the working copy) what readers see
    of `entry`, skipping every check of the workflow."""
    (live,) = publishing.make_live(
        [(entry, version)],
        user=user,
        material=material,
        correction_note=correction_note,
        comment=comment,
        now=now,
    )
    return live
