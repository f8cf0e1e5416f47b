"""`manage.py source_changes [--json]`: sources whose current text is not the confirmed one."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.sourcetext.helpers import (
    CONFIRMED_ON,
    NVLinkSourceFactory,
    UnconfirmedCitationFactory,
    change_page,
    confirm_in_admin,
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
    source = NVLinkSourceFactory.create(site=site)
    nvlink = make_entry("NVLink", slug="nvlink")
    UnconfirmedCitationFactory.create(entry=nvlink, source=source)
    UnconfirmedCitationFactory.create(
        entry=make_entry("Scale-up network", slug="scale-up-network"),
        source=source,
        note="Rack-scale.",
    )
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


def run_with_stderr(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("source_changes", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_with_no_text_ever_stored_it_says_so_instead_of_no_differences(
    settings, site, make_entry, fact_checker
) -> None:
    # `make run`'s setting: confirming does not fetch, so the desk never read the page.
    settings.SOURCETEXT_FETCH_ON_CONFIRM = False
    source = NVLinkSourceFactory.create(site=site)
    nvlink = make_entry("NVLink", slug="nvlink")
    UnconfirmedCitationFactory.create(entry=nvlink, source=source)
    confirm_in_admin(fact_checker, nvlink)
    change_page(site)
    out = run()
    assert out.strip() == (
        "0 sources have stored text; confirming fetches it only with "
        "SOURCETEXT_FETCH_ON_CONFIRM (now off), and a scheduled check stores it when a "
        "confirmed page changes. Nothing could be compared."
    )
    assert "No source's text differs" not in out
    # Scripts still get a JSON list on stdout; the note goes to stderr.
    stdout, stderr = run_with_stderr("--json")
    assert json.loads(stdout) == []
    assert stderr.startswith("0 sources have stored text;")


def test_a_page_changed_since_a_confirmation_that_kept_no_text_is_named(
    settings, site, make_entry, fact_checker
) -> None:
    source = NVLinkSourceFactory.create(site=site)
    nvlink = make_entry("NVLink", slug="nvlink")
    UnconfirmedCitationFactory.create(entry=nvlink, source=source)
    scheduled_check(source)  # the link checker knows the page's fingerprint
    settings.SOURCETEXT_FETCH_ON_CONFIRM = False
    confirm_in_admin(fact_checker, nvlink)  # confirmed with no text kept
    change_page(site)
    scheduled_check(source)  # the new text is stored; the confirmed one never was
    source.refresh_from_db()
    assert source.changed_since_confirmed
    out = run()
    assert (
        f"NVIDIA: NVLink and NVLink Switch <{source.url}>: its page changed since it was "
        "confirmed, but no text of it was stored then (or since) to compare" in out
    )
    assert "1 source(s) changed since confirmed with no confirmed text to compare." in out
    assert "No source's text differs" not in out


def test_no_differences_says_how_many_sources_were_compared(changed, site) -> None:
    site.serve("nvlink", PAGE_V1)
    scheduled_check(changed)
    assert (
        run()
        .strip()
        .endswith(
            "No source's text differs from the text that was confirmed "
            "(1 of 1 sources have stored text)."
        )
    )


def test_an_empty_library_says_there_are_no_sources(db) -> None:
    assert run().strip() == "There are no sources yet."
