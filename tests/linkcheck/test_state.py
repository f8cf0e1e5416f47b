"""A source's health follows from its history of checks."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import CheckResult
from editorial.linkcheck.state import apply_result, prune_history
from glossary.models import LinkCheck, Source

MONDAY = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
Health = Source.Health


def _source(**fields) -> Source:
    return Source(url="https://docs.example/page", title="Page", **fields)


def _result(outcome: Outcome, **fields) -> CheckResult:
    return CheckResult(url="https://docs.example/page", outcome=outcome, **fields)


def _check(source: Source, outcome: Outcome, when: datetime, **fields):
    with time_machine.travel(when, tick=False):
        return apply_result(
            source, _result(outcome, **fields), timezone.now(), rng=random.Random(1)
        )


def test_one_failure_makes_a_source_failing_not_broken() -> None:
    source = _source(health=Health.OK)
    transition = _check(source, Outcome.BROKEN, MONDAY, status_code=404)
    assert source.health == Health.FAILING
    assert source.failure_streak == 1
    assert transition.health_changed


def test_three_failures_three_days_apart_make_a_source_broken() -> None:
    source = _source(health=Health.OK)
    _check(source, Outcome.BROKEN, MONDAY)
    _check(source, Outcome.TRANSIENT, MONDAY + timedelta(days=3))
    assert source.health == Health.FAILING
    _check(source, Outcome.BROKEN, MONDAY + timedelta(days=6))
    assert source.health == Health.BROKEN
    assert source.failure_streak == 3
    assert source.first_failure_at == MONDAY


def test_failures_closer_than_three_days_count_once() -> None:
    source = _source(health=Health.OK)
    for hours in (0, 6, 30, 60):
        _check(source, Outcome.BROKEN, MONDAY + timedelta(hours=hours))
    assert source.failure_streak == 1
    assert source.health == Health.FAILING
    _check(source, Outcome.BROKEN, MONDAY + timedelta(days=3))
    _check(source, Outcome.BROKEN, MONDAY + timedelta(days=5))  # only two days later
    assert source.failure_streak == 2
    assert source.health == Health.FAILING


def test_one_success_resets_the_streak() -> None:
    source = _source(health=Health.OK)
    _check(source, Outcome.BROKEN, MONDAY)
    _check(source, Outcome.BROKEN, MONDAY + timedelta(days=3))
    _check(source, Outcome.OK, MONDAY + timedelta(days=6))
    assert source.health == Health.OK
    assert source.failure_streak == 0
    assert source.first_failure_at is None
    _check(source, Outcome.BROKEN, MONDAY + timedelta(days=9))
    assert source.health == Health.FAILING


@pytest.mark.parametrize("outcome", [Outcome.RATE_LIMITED, Outcome.BLOCKED, Outcome.TLS_ERROR])
def test_outcomes_that_say_nothing_about_the_page_never_count_towards_broken(
    outcome: Outcome,
) -> None:
    source = _source(health=Health.OK)
    for day in range(0, 30, 3):
        _check(source, outcome, MONDAY + timedelta(days=day))
    assert source.failure_streak == 0
    assert source.health != Health.BROKEN


def test_a_blocked_page_needs_a_human_look() -> None:
    source = _source(health=Health.OK)
    _check(source, Outcome.BLOCKED, MONDAY, status_code=403)
    assert source.health == Health.BLOCKED


def test_a_permanent_redirect_suggests_the_new_url() -> None:
    source = _source(health=Health.OK)
    transition = _check(source, Outcome.MOVED, MONDAY, final_url="https://docs.example/new")
    assert source.health == Health.MOVED
    assert source.suggested_url == "https://docs.example/new"
    assert transition.health_changed


def test_a_healthy_source_is_rechecked_in_14_to_28_days() -> None:
    for seed in range(20):
        source = _source()
        with time_machine.travel(MONDAY, tick=False):
            apply_result(source, _result(Outcome.OK), timezone.now(), rng=random.Random(seed))
        assert source.next_check_at is not None
        assert timedelta(days=14) <= source.next_check_at - MONDAY <= timedelta(days=28)


def test_a_failing_source_is_rechecked_in_3_to_4_days() -> None:
    for seed in range(20):
        source = _source()
        with time_machine.travel(MONDAY, tick=False):
            apply_result(
                source, _result(Outcome.TRANSIENT), timezone.now(), rng=random.Random(seed)
            )
        assert source.next_check_at is not None
        assert timedelta(days=3) <= source.next_check_at - MONDAY <= timedelta(days=4)


def test_a_source_cited_only_by_archived_entries_is_rechecked_less_often(settings) -> None:
    source = _source()
    apply_result(source, _result(Outcome.OK), MONDAY, archived_only=True, rng=random.Random(1))
    assert source.next_check_at is not None
    assert source.next_check_at - MONDAY >= timedelta(days=14 * settings.LINKCHECK_ARCHIVED_FACTOR)


def test_a_rate_limited_source_is_not_asked_again_before_retry_after() -> None:
    source = _source()
    apply_result(
        source, _result(Outcome.RATE_LIMITED, retry_after=10 * 86400), MONDAY, rng=random.Random(1)
    )
    assert source.next_check_at is not None
    assert source.next_check_at - MONDAY >= timedelta(days=10)


def test_a_text_change_after_confirmation_flags_the_source_once() -> None:
    source = _source(health=Health.OK, last_fingerprint="a" * 64, confirmed_fingerprint="a" * 64)
    same = _check(source, Outcome.OK, MONDAY, fingerprint="a" * 64)
    assert not same.worth_telling
    changed = _check(source, Outcome.OK, MONDAY + timedelta(days=14), fingerprint="b" * 64)
    assert source.changed_since_confirmed
    assert changed.content_changed and changed.worth_telling
    again = _check(source, Outcome.OK, MONDAY + timedelta(days=28), fingerprint="c" * 64)
    assert not again.worth_telling  # editors were told already


def test_an_unchanged_state_is_not_worth_telling() -> None:
    source = _source(health=Health.OK)
    assert not _check(source, Outcome.OK, MONDAY).worth_telling


@pytest.mark.django_db
def test_history_older_than_the_retention_is_pruned(settings) -> None:
    settings.LINKCHECK_RETENTION_DAYS = 30
    source = Source.objects.create(url="https://docs.example/p", title="P")
    old = LinkCheck.objects.create(
        source=source, url=source.url, outcome="ok", checked_at=MONDAY - timedelta(days=31)
    )
    recent = LinkCheck.objects.create(
        source=source, url=source.url, outcome="ok", checked_at=MONDAY - timedelta(days=29)
    )
    assert prune_history(MONDAY) == 1
    assert list(LinkCheck.objects.values_list("pk", flat=True)) == [recent.pk]
    assert not LinkCheck.objects.filter(pk=old.pk).exists()


# --- Empty pages ----------------------------------------------------------------------------


def test_one_empty_answer_makes_a_healthy_source_failing_and_keeps_its_fingerprint() -> None:
    source = _source(health=Health.OK, last_fingerprint="a" * 64)
    transition = _check(source, Outcome.EMPTY, MONDAY, status_code=200)
    assert source.health == Health.FAILING
    assert source.failure_streak == 1
    assert source.last_outcome == "empty"
    # No text is not new text: "changed since confirmed" is not claimed from nothing.
    assert source.last_fingerprint == "a" * 64
    assert transition.health_changed


def test_empty_answers_days_apart_make_a_source_empty_never_broken() -> None:
    source = _source(health=Health.OK)
    _check(source, Outcome.EMPTY, MONDAY)
    _check(source, Outcome.EMPTY, MONDAY + timedelta(hours=20))  # the same bad day
    assert source.failure_streak == 1
    _check(source, Outcome.EMPTY, MONDAY + timedelta(days=3))
    assert source.health == Health.FAILING
    transition = _check(source, Outcome.EMPTY, MONDAY + timedelta(days=6))
    assert source.health == Health.EMPTY
    assert transition.new_health == Health.EMPTY
    _check(source, Outcome.EMPTY, MONDAY + timedelta(days=9))
    assert source.health == Health.EMPTY


def test_an_empty_page_with_text_again_is_ok() -> None:
    source = _source(health=Health.EMPTY, failure_streak=3, first_failure_at=MONDAY)
    _check(source, Outcome.OK, MONDAY + timedelta(days=9), fingerprint="b" * 64)
    assert source.health == Health.OK
    assert source.failure_streak == 0


def test_an_empty_source_whose_address_then_fails_is_broken() -> None:
    source = _source(health=Health.OK)
    for days in (0, 3, 6):
        _check(source, Outcome.EMPTY, MONDAY + timedelta(days=days))
    assert source.health == Health.EMPTY
    _check(source, Outcome.BROKEN, MONDAY + timedelta(days=9), status_code=404)
    assert source.health == Health.BROKEN
