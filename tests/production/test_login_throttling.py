"""Password guessing on the admin login is slowed (django-axes) and logged."""

from __future__ import annotations

import datetime
import logging
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client

from tests.conftest import TODAY

NOW = datetime.datetime.combine(TODAY, datetime.time(9, 0), tzinfo=datetime.UTC)
PASSWORD = "pw-root-123"
GUESSER = "203.0.113.7"
COLLEAGUE = "198.51.100.20"


def attempt(client: Client, password: str, address: str = GUESSER, username: str = "root") -> Any:
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


def signed_in(response: Any) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


@pytest.fixture(autouse=True)
def fast_hashing(settings: Any) -> None:
    # Dozens of logins per test; the production hasher would take seconds.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def guesses(superuser: User, settings: Any) -> int:
    return settings.AXES_FAILURE_LIMIT


@time_machine.travel(NOW, tick=False)
def test_the_right_password_signs_in(client: Client, superuser: User) -> None:
    assert signed_in(attempt(client, PASSWORD))


@time_machine.travel(NOW, tick=False)
def test_after_the_limit_even_the_right_password_is_refused(
    client: Client, guesses: int, caplog: pytest.LogCaptureFixture
) -> None:
    for _ in range(guesses - 1):
        response = attempt(client, "wrong-guess")
        assert response.status_code == 200  # the form again, with its error
    with caplog.at_level(logging.WARNING, logger="axes"):
        assert attempt(client, "wrong-guess").status_code == 429
    locked = attempt(client, PASSWORD)
    assert locked.status_code == 429
    assert not signed_in(locked)
    assert "_auth_user_id" not in client.session
    assert any("locking out" in record.getMessage().lower() for record in caplog.records)


@time_machine.travel(NOW, tick=False)
def test_one_guess_short_of_the_limit_still_signs_in(client: Client, guesses: int) -> None:
    for _ in range(guesses - 1):
        attempt(client, "wrong-guess")
    assert signed_in(attempt(client, PASSWORD))


@time_machine.travel(NOW, tick=False)
def test_a_lockout_does_not_shut_out_colleagues_at_other_addresses(
    client: Client, guesses: int
) -> None:
    for _ in range(guesses):
        attempt(client, "wrong-guess")
    assert attempt(Client(), PASSWORD).status_code == 429
    assert signed_in(attempt(Client(), PASSWORD, address=COLLEAGUE))


def test_the_lockout_ends_after_the_cool_off(guesses: int, settings: Any) -> None:
    cool_off = datetime.timedelta(hours=settings.AXES_COOLOFF_TIME)
    with time_machine.travel(NOW, tick=False):
        for _ in range(guesses):
            attempt(Client(), "wrong-guess")
        assert attempt(Client(), PASSWORD).status_code == 429
    with time_machine.travel(NOW + cool_off + datetime.timedelta(minutes=1), tick=False):
        assert signed_in(attempt(Client(), PASSWORD))


def test_guessing_during_the_lockout_starts_the_cool_off_again(guesses: int, settings: Any) -> None:
    cool_off = datetime.timedelta(hours=settings.AXES_COOLOFF_TIME)
    with time_machine.travel(NOW, tick=False):
        for _ in range(guesses):
            attempt(Client(), "wrong-guess")
    with time_machine.travel(NOW + cool_off - datetime.timedelta(minutes=1), tick=False):
        assert attempt(Client(), "another-guess").status_code == 429
    with time_machine.travel(NOW + cool_off + datetime.timedelta(minutes=1), tick=False):
        assert attempt(Client(), PASSWORD).status_code == 429


def test_the_guessers_address_comes_from_the_trusted_proxy(
    client: Client, guesses: int, settings: Any
) -> None:
    """Behind one proxy the client is the last X-Forwarded-For entry; what the client
    wrote before it cannot dodge the lockout."""
    settings.TRUSTED_PROXY_COUNT = 1
    with time_machine.travel(NOW, tick=False):
        for n in range(guesses):
            client.post(
                "/admin/login/",
                {"username": "root", "password": "wrong-guess"},
                REMOTE_ADDR="10.0.0.2",
                HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, {GUESSER}",
            )
        locked = client.post(
            "/admin/login/",
            {"username": "root", "password": PASSWORD},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=f"192.0.2.99, {GUESSER}",
        )
        assert locked.status_code == 429
        other = Client().post(
            "/admin/login/?next=/admin/",
            {"username": "root", "password": PASSWORD},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=COLLEAGUE,
        )
        assert signed_in(other)


def test_client_ip_ignores_forwarded_addresses_without_a_trusted_proxy(rf: Any, settings: Any):
    from config.security import client_ip

    settings.TRUSTED_PROXY_COUNT = 0
    request = rf.get("/", REMOTE_ADDR="198.51.100.1", HTTP_X_FORWARDED_FOR="1.2.3.4")
    assert client_ip(request) == "198.51.100.1"
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_ip(request) == "1.2.3.4"
    request = rf.get("/", REMOTE_ADDR="198.51.100.1", HTTP_X_FORWARDED_FOR="not-an-ip")
    assert client_ip(request) == "198.51.100.1"


@time_machine.travel(NOW, tick=False)
def test_a_signed_in_session_holds_ids_not_secrets(client: Client, superuser: User) -> None:
    from django.contrib.sessions.models import Session

    assert signed_in(attempt(client, PASSWORD))
    (session,) = Session.objects.all()
    data = session.get_decoded()
    # And whether the person set up two-factor login (editorial.twofactor), a yes or no.
    assert set(data) == {
        "_auth_user_id",
        "_auth_user_backend",
        "_auth_user_hash",
        "desk_2fa_enrolled",
    }
    assert data["desk_2fa_enrolled"] is False
    assert PASSWORD not in session.session_data and PASSWORD not in str(data)
    assert superuser.password not in str(data)  # the hash itself is not stored either
