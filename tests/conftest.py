"""Shared fixtures: the demo, entry factories, and one named user per role (the personas)."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import override_settings

from editorial.permissions import Role, sync_roles
from glossary.models import Entry, Episode, Person, Show, Source
from glossary.publishing import save_version
from tests.factories import (
    EntryFactory,
    EpisodeFactory,
    PersonFactory,
    ReadyEntryFactory,
    ShowFactory,
    SourceFactory,
)
from tests.personas import member

# A fixed "today" for anything that depends on dates.
TODAY = datetime.date(2026, 11, 30)


# What every test runs under, set once for the session so fixtures of any scope (the demo
# loaded once per module) see it too; a test changes one with pytest-django's `settings`.
SUITE_SETTINGS = {
    # Tests make many requests from one address; tests/public/test_rate_limits.py sets
    # the limits it checks.
    "PUBLIC_SEARCH_RATE_LIMIT": "100000/m",
    "PUBLIC_API_RATE_LIMIT": "100000/m",
    # Confirming a citation fetches its page when no text is stored (docs/sources.md);
    # the demo's sources are real addresses, and tests never leave loopback.
    # tests/sourcetext turns it back on against its local site.
    "SOURCETEXT_FETCH_ON_CONFIRM": False,
    # Nor does confirming ask the Wayback Machine for a capture (docs/archive.md);
    # tests/archive turns it on against a local fake of the API.
    "ARCHIVE_ON_CONFIRM": False,
    # Most tests sign in with client.force_login and no second factor; the requirement is
    # on in tests/twofactor, which are about it. (It is off under DEBUG anyway: this holds
    # the suite to it whatever the environment says.)
    "DESK_REQUIRE_2FA": False,
    # Real hashing costs about a second per user here; no test is about its strength.
    "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"],
}


@pytest.fixture(scope="session", autouse=True)
def suite_settings() -> Iterator[None]:
    with override_settings(**SUITE_SETTINGS):
        yield


@pytest.fixture
def roles(db: Any) -> None:
    # The data migration creates the groups, but transactional tests flush them.
    sync_roles()


@pytest.fixture
def writer(roles: None) -> User:
    return member("wanda_writer", Role.WRITER)


@pytest.fixture
def fact_checker(roles: None) -> User:
    return member("fiona_checker", Role.FACT_CHECKER)


@pytest.fixture
def editor(roles: None) -> User:
    return member("ed_editor", Role.EDITOR)


@pytest.fixture
def second_editor(roles: None) -> User:
    return member("eve_editor", Role.EDITOR)


@pytest.fixture
def admin_user(roles: None) -> User:
    return member("ada_admin", Role.ADMIN)


@pytest.fixture
def outsider(roles: None) -> User:
    """Signed in, but in no role and not staff."""
    return member("otto_outsider", None)


@pytest.fixture
def personas(
    writer: User, fact_checker: User, editor: User, admin_user: User, outsider: User
) -> dict[str, User | None]:
    return {
        "writer": writer,
        "fact_checker": fact_checker,
        "editor": editor,
        "admin": admin_user,
        "outsider": outsider,
        "anonymous": None,
    }


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """The cache outlives each test's database: a page cached by one test must not serve
    the next."""
    from django.core.cache import cache

    from glossary.cache import invalidate

    cache.clear()
    invalidate()  # also forgets the pages this process keeps in memory


# Modules whose every database test asks for the demo: they load it once (`_module_demo`).
_MODULES_SHARING_THE_DEMO: set[str] = set()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    uses_database: dict[str, list[pytest.Function]] = {}
    for item in items:
        if isinstance(item, pytest.Function) and (
            item.get_closest_marker("django_db")
            or {"db", "transactional_db", "live_server"} & set(item.fixturenames)
        ):
            uses_database.setdefault(item.module.__name__, []).append(item)
    _MODULES_SHARING_THE_DEMO.clear()
    _MODULES_SHARING_THE_DEMO.update(
        module
        for module, tests in uses_database.items()
        if all(_asks_for_demo_alone(test) for test in tests)
    )


def _asks_for_demo_alone(test: pytest.Function) -> bool:
    """It uses the demo, in a transaction rolled back (a transactional test commits, and
    flushes the database after)."""
    marker = test.get_closest_marker("django_db")
    transactional = "transactional_db" in test.fixturenames or "live_server" in test.fixturenames
    return (
        "demo" in test.fixturenames
        and not transactional
        and not (marker and marker.kwargs.get("transaction"))
    )


@pytest.fixture(scope="module")
def _module_demo(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[dict[str, int] | None]:
    """The demo loaded once for a module where every database test asks for it, in a
    transaction rolled back after the module's last test; each test runs in a savepoint of
    it, rolled back after the test, so tests still see only the demo and their own rows.

    Elsewhere None: a module with a test that does not ask for the demo (it must not see
    it) or commits (it would commit or flush the module's demo) loads it per test.
    """
    if request.module.__name__ not in _MODULES_SHARING_THE_DEMO:
        yield None
        return
    from demo.content import load_demo

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        # As Django's TestCase marks its own: a `durable` block inside still opens.
        outer._from_testcase = True  # type: ignore[attr-defined]
        with outer:
            loaded = load_demo()
            yield loaded
            transaction.set_rollback(True)


@pytest.fixture
def demo(_module_demo: dict[str, int] | None, db: Any) -> dict[str, int]:
    """The demo (demo/content.py): what `load_demo` returns."""
    if _module_demo is not None:
        return dict(_module_demo)
    from demo.content import load_demo

    return load_demo()


@pytest.fixture
def superuser(db: Any) -> User:
    return User.objects.create_superuser("root", "root@example.com", "pw-root-123")


@pytest.fixture
def show(db: Any) -> Show:
    return ShowFactory.create(name="Test Show", slug="test-show")


@pytest.fixture
def episode(show: Show) -> Episode:
    return EpisodeFactory.create(
        show=show, number=7, title="Seven", url="https://podcast.example/7"
    )


@pytest.fixture
def person(db: Any) -> Person:
    return PersonFactory.create(name="Ada Guest", slug="ada-guest")


@pytest.fixture
def make_entry(db: Any) -> Callable[..., Entry]:
    """`make_entry(term=None, **fields)`: a draft (EntryFactory); numbered from 1 in each
    test, so its address is known (term-1-...)."""
    EntryFactory.reset_sequence(1)

    def make(term: str | None = None, **fields: Any) -> Entry:
        if term is not None:
            fields["term"] = term
        return EntryFactory.create(**fields)

    return make


@pytest.fixture
def make_ready_entry(
    make_entry: Callable[..., Entry], make_source: Callable[..., Source], writer: User
) -> Callable[..., Entry]:
    """`make_ready_entry(term="Interconnect", *, checked_on=None, in_review=False, **fields)`:
    an entry the writer wrote that passes every blocking publish check (ReadyEntryFactory)."""

    def make(term: str = "Interconnect", **fields: Any) -> Entry:
        fields.setdefault("created_by", writer)
        return ReadyEntryFactory.create(term=term, **fields)

    return make


@pytest.fixture
def ready_entry(make_ready_entry: Callable[..., Entry]) -> Entry:
    """A draft by the writer that passes every blocking publish check."""
    return make_ready_entry()


@pytest.fixture
def unsourced_entry(make_entry: Callable[..., Entry], writer: User) -> Entry:
    """A draft by the writer that fails the blocking "at least one source" check."""
    entry = make_entry("Unsourced", summary="No sources yet.", created_by=writer)
    save_version(entry, user=writer, comment="First draft.")
    return entry


@pytest.fixture
def entry_in_review(make_ready_entry: Callable[..., Entry]) -> Callable[..., Entry]:
    """Make entries the writer wrote and submitted, passing every blocking check."""

    def make(term: str = "Interconnect", checked_on: datetime.date = TODAY) -> Entry:
        return make_ready_entry(term, checked_on=checked_on, in_review=True)

    return make


@pytest.fixture
def make_source(db: Any) -> Callable[..., Source]:
    """`make_source(**fields)`: a source (SourceFactory), numbered from 1 in each test."""
    SourceFactory.reset_sequence(1)
    return SourceFactory.create


@pytest.fixture
def browser() -> Any:
    """A headless Debian chromium (see tests/browser.py); closed after the test."""
    from tests.browser import chromium

    with chromium() as launched:
        yield launched


@pytest.fixture(scope="session", autouse=True)
def _no_lingering_sessions(django_db_setup: Any, django_db_blocker: Any) -> Any:
    """End sessions the live server's request threads kept open (CONN_MAX_AGE), so the
    PostgreSQL test database can be dropped at the end of the run."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
