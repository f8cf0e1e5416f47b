"""The health chart reads recorded health changes and draws what the replay of the checks drew."""

from __future__ import annotations

import datetime
import random
from typing import Any

import pytest
from django.db.models import Count, Q

from editorial.admin import dashboard
from editorial.linkcheck import service
from editorial.linkcheck.classify import Outcome
from editorial.linkcheck.fetch import CheckResult
from editorial.linkcheck.state import apply_result
from glossary.models import LinkCheck, Source

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)
DAY = datetime.timedelta(days=1)
# What the chart replayed before its first week when it replayed checks.
LOOKBACK_DAYS = 120


def replayed_history(now: datetime.datetime) -> list[dict[str, int]]:
    """The chart as it was drawn before the changes were rows: every source's checks in
    the window replayed through the link checker's state machine (kept here as the
    reference the recorded changes must agree with)."""
    ends = dashboard.week_ends(now)
    since = ends[0] - datetime.timedelta(days=LOOKBACK_DAYS)
    in_window = LinkCheck.objects.filter(
        source__isnull=False, checked_at__gte=since, checked_at__lte=now
    )
    checked = in_window.values("source_id")
    idle = Source.objects.filter(created_at__lte=now).exclude(pk__in=checked)
    idle_counts = idle.aggregate(
        **{f"w{w}": Count("pk", filter=Q(created_at__lte=end)) for w, end in enumerate(ends)}
    )
    created = dict(
        Source.objects.filter(created_at__lte=now, pk__in=checked).values_list("pk", "created_at")
    )
    checks = in_window.order_by("source_id", "checked_at", "pk").values_list(
        "source_id", "checked_at", "outcome", "status_code", "final_url", "fingerprint"
    )
    counts = [{state.value: 0 for state in dashboard.HEALTH_ORDER} for _ in ends]
    for w in range(len(ends)):
        counts[w][Source.Health.UNCHECKED] += idle_counts[f"w{w}"] or 0
    by_source: dict[int, list[Any]] = {}
    for row in checks:
        by_source.setdefault(row[0], []).append(row)
    for source_id, created_at in created.items():
        replica = Source(health=Source.Health.UNCHECKED)
        history = by_source.get(source_id, [])
        i = 0
        for w, end in enumerate(ends):
            while i < len(history) and history[i][1] <= end:
                _, checked_at, outcome, status_code, final_url, fingerprint = history[i]
                result = CheckResult(
                    url="",
                    outcome=Outcome(outcome),
                    status_code=status_code,
                    final_url=final_url,
                    fingerprint=fingerprint,
                )
                apply_result(replica, result, checked_at, rng=random.Random(0))
                i += 1
            if created_at <= end:
                counts[w][replica.health] += 1
    return counts


def seed_history(rng: random.Random) -> None:
    """Thirty sources, added at different times, with checks of every outcome since."""
    outcomes = list(Outcome)
    weights = [4 if o in (Outcome.OK, Outcome.BROKEN, Outcome.EMPTY) else 1 for o in outcomes]
    planned: list[tuple[datetime.datetime, Source, Outcome]] = []
    for n in range(30):
        age = rng.uniform(1, 190)
        source = Source.objects.create(url=f"https://example.org/{n}", title=f"Page {n}")
        Source.objects.filter(pk=source.pk).update(created_at=NOW - age * DAY)
        days = sorted((rng.uniform(0, age) for _ in range(rng.randint(0, 14))), reverse=True)
        planned += [(NOW - d * DAY, source, rng.choices(outcomes, weights)[0]) for d in days]
    for at, source, outcome in sorted(planned, key=lambda p: p[0]):
        source.refresh_from_db()
        service.record([(source, CheckResult(url=source.url, outcome=outcome))], None, at)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_chart_from_recorded_changes_is_the_chart_the_replay_drew(seed: int) -> None:
    seed_history(random.Random(seed))
    replayed = replayed_history(NOW)
    # The seeded history reaches every state the chart draws, or the comparison says little.
    seen = {state for week in replayed for state, n in week.items() if n}
    assert {"ok", "failing", "broken", "unchecked"} <= seen
    assert dashboard.health_history(NOW) == replayed


def test_a_source_checked_only_before_the_old_lookback_is_drawn_in_its_recorded_state() -> None:
    """The one place the chart now differs: the replay forgot a state older than its window."""
    source = Source.objects.create(url="https://example.org/old", title="Old")
    Source.objects.filter(pk=source.pk).update(created_at=NOW - 400 * DAY)
    source.refresh_from_db()
    service.record(
        [(source, CheckResult(url=source.url, outcome=Outcome.OK))], None, NOW - 300 * DAY
    )
    assert replayed_history(NOW)[-1]["unchecked"] == 1
    assert dashboard.health_history(NOW)[-1]["ok"] == 1
