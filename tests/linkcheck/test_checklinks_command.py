"""`manage.py checklinks`: foreground checks with a progress bar, a table or JSON."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from glossary.models import LinkCheck, Source
from tests.linkcheck.server import LocalSite

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]


def _run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("checklinks", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_json_lists_every_url_with_the_documented_keys(server: LocalSite) -> None:
    out, _ = _run("--url", server.url("/ok"), server.url("/status/404"), "--json")
    rows = json.loads(out)
    assert [row["url"] for row in rows] == [server.url("/ok"), server.url("/status/404")]
    assert [row["outcome"] for row in rows] == ["ok", "broken"]
    assert set(rows[0]) >= {
        "url",
        "outcome",
        "status_code",
        "final_url",
        "redirects",
        "elapsed_ms",
        "error",
        "fingerprint",
    }
    assert rows[1]["status_code"] == 404


def test_url_checks_need_no_source_row(server: LocalSite) -> None:
    _run("--url", server.url("/ok"), "--json")
    assert Source.objects.count() == 0
    assert LinkCheck.objects.get().source is None


def test_the_summary_table_counts_outcomes_and_lists_the_problems(server: LocalSite) -> None:
    out, err = _run("--url", server.url("/ok"), server.url("/loop-a"))
    assert "ok" in out and "broken" in out
    assert "redirect loop" in out
    assert "2 checked, 1 not ok." in out
    assert "2/2 checked" in err  # the progress bar is on stderr


def test_source_checks_update_the_source(server: LocalSite, make_source) -> None:
    source = make_source(url=server.url("/status/410"))
    out, _ = _run("--source", str(source.pk), "--json")
    assert json.loads(out)[0]["outcome"] == "broken"
    source.refresh_from_db()
    assert source.health == Source.Health.FAILING
    assert source.checks.count() == 1


def test_due_checks_only_the_due_sources(server: LocalSite, make_source) -> None:
    due = make_source(url=server.url("/ok"))
    _run("--due", "--json")
    out, _ = _run("--due", "--json")  # nothing is due right after a check
    assert json.loads(out) == []
    due.refresh_from_db()
    assert due.health == Source.Health.OK


def test_all_checks_every_source(server: LocalSite, make_source) -> None:
    make_source(url=server.url("/ok"))
    make_source(url=server.url("/head-405"))
    out, _ = _run("--all", "--json")
    assert sorted(row["outcome"] for row in json.loads(out)) == ["ok", "ok"]


def test_timeout_and_concurrency_are_honoured(server: LocalSite, settings) -> None:
    settings.LINKCHECK_RETRIES = 0
    out, _ = _run("--url", server.url("/slow?seconds=3"), "--timeout", "0.2", "--json")
    assert json.loads(out)[0]["outcome"] == "transient"
    settings.LINKCHECK_PER_HOST_CONCURRENCY = 0
    urls = [server.url(f"/track/{i}?hold=0.05") for i in range(6)]
    _run("--url", *urls, "--concurrency", "1")
    assert server.peak_active == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "Say what to check"),
        (("--all", "--due"), "cannot be combined"),
        (("--source", "999999"), "No source with id 999999"),
        (("--url", "ftp://example.org/x"), "Not an http(s) URL"),
        (("--url", "http://x.invalid", "--concurrency", "0"), "at least 1"),
        (("--url", "http://x.invalid", "--timeout", "soon"), "number of seconds"),
    ],
)
def test_bad_arguments_get_a_clear_error(args: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        _run(*args)
