"""`manage.py source_changes [--json]`: sources whose current text is not the confirmed one."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.sourcetext.helpers import (
    CONFIRMED_ON,
    change_page,
    cite,
    confirm_in_admin,
    nvlink_source,
    scheduled_check,
)
from tests.sourcetext.pages import PAGE_V1

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


def run(*args: str) -> str:
    out = StringIO()
    call_command("source_changes", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def changed(site, make_entry, fact_checker):
    """The seed's story: confirmed at 3 TB/s, cited by two entries, now 3.6 TB/s."""
    source = nvlink_source(site)
    nvlink = make_entry("NVLink", slug="nvlink")
    cite(nvlink, source)
    cite(make_entry("Scale-up network", slug="scale-up-network"), source, note="Rack-scale.")
    confirm_in_admin(fact_checker, nvlink)
    change_page(site)
    scheduled_check(source)
    source.refresh_from_db()
    return source


def test_json_lists_the_changed_figure_under_figures_gone_with_the_citing_entries(
    changed,
) -> None:
    [found] = json.loads(run("--json"))
    assert set(found) == {
        "url",
        "confirmed_on",
        "checked_at",
        "removed",
        "added",
        "figures_gone",
        "entries",
    }
    assert found["url"] == changed.url
    assert found["confirmed_on"] == CONFIRMED_ON.isoformat()
    assert found["checked_at"] == changed.last_checked_at.isoformat()
    assert found["figures_gone"] == ["3 TB/s"]
    assert found["entries"] == ["nvlink", "scale-up-network"]
    assert found["removed"] == [
        "The sixth generation of NVLink delivers 3 TB/s of bandwidth per GPU on the Vera "
        "Rubin platform.",
        "An NVLink Switch system connects 72 GPUs in one rack as a single, giant accelerator.",
    ]
    assert len(found["added"]) == 2
    assert "3.6 TB/s" in found["added"][0]


def test_the_human_output_names_the_source_the_figures_and_the_claim(changed) -> None:
    out = run()
    assert "NVIDIA: NVLink and NVLink Switch" in out
    assert "figures gone: 3 TB/s" in out
    assert (
        "nvlink: NVIDIA: NVLink and NVLink Switch no longer says '3 TB/s'; it now says '3.6 TB/s'"
        in out
    )
    assert "1 source(s) changed since confirmed." in out


def test_a_page_that_changed_back_is_not_listed(site, changed) -> None:
    site.serve("nvlink", PAGE_V1)
    scheduled_check(changed)
    assert json.loads(run("--json")) == []
    assert "No source's text differs" in run()


def test_nothing_confirmed_nothing_listed(db) -> None:
    assert json.loads(run("--json")) == []
