"""/healthz says the process is up; /readyz says it can serve: database, migrations, Redis."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from config import health
from tests.production.conftest import free_port
from tests.production.deployfiles import ROOT


def redis_settings(url: str) -> dict[str, Any]:
    return {
        "CELERY_BROKER_URL": url,
        "CACHES": {
            "default": {
                "BACKEND": "config.cache.ResilientRedisCache",
                "LOCATION": url,
            }
        },
    }


def test_healthz_answers_without_touching_the_database(client):
    # No `db` fixture: any query here would raise.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-store" in response["Cache-Control"]


def test_health_endpoints_answer_probes_on_any_host_over_plain_http(client, db):
    # Container probes call http://localhost:8000/... without the proxy's headers.
    with override_settings(ALLOWED_HOSTS=["glossary.example"], SECURE_SSL_REDIRECT=True):
        assert client.get("/healthz", HTTP_HOST="10.1.2.3:8000").status_code == 200
        assert client.get("/readyz", HTTP_HOST="web:8000").status_code in (200, 503)
        assert client.get("/", HTTP_HOST="10.1.2.3:8000").status_code == 400


def test_readyz_is_ready_when_database_migrations_and_redis_answer(
    client, db, redis_url, django_assert_num_queries
):
    with override_settings(**redis_settings(redis_url)):
        with django_assert_num_queries(1):
            response = client.get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ready"
    assert {name: check["ok"] for name, check in body["checks"].items()} == {
        "database": True,
        "migrations": True,
        "broker": True,
        "cache": True,
    }
    assert "no-store" in response["Cache-Control"]


def test_readyz_reports_the_broker_down_without_leaking_its_url(client, db, closed_redis_url):
    with override_settings(**redis_settings(closed_redis_url)):
        response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not ready"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"] == {
        "ok": False,
        "ms": body["checks"]["broker"]["ms"],
        "error": "ConnectionError",
    }
    assert "sekrit" not in response.content.decode()
    assert "127.0.0.1" not in response.content.decode()


def test_readyz_is_never_served_from_a_cache(client, db, redis_url, closed_redis_url):
    with override_settings(**redis_settings(redis_url)):
        assert client.get("/readyz").status_code == 200
    with override_settings(**redis_settings(closed_redis_url)):
        assert client.get("/readyz").status_code == 503
    with override_settings(**redis_settings(redis_url)):
        assert client.get("/readyz").status_code == 200


def test_readyz_names_an_unapplied_migration(client, db):
    app, name = sorted(health.expected_migrations())[0]
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM django_migrations WHERE app = %s AND name = %s", [app, name])
    response = client.get("/readyz")
    assert response.status_code == 503
    migrations = response.json()["checks"]["migrations"]
    assert migrations["ok"] is False
    assert migrations["missing"] == [f"{app}.{name}"]


def test_readyz_without_redis_configured_checks_only_the_database(client, db):
    embedded = {
        "CELERY_BROKER_URL": "memory://",
        "CACHES": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
    }
    with override_settings(**embedded):
        response = client.get("/readyz")
    assert response.status_code == 200
    assert set(response.json()["checks"]) == {"database", "migrations"}


def test_the_expected_migrations_are_every_apps_latest(db):
    expected = dict(health.expected_migrations())
    assert {"glossary", "auth", "axes", "sessions"} <= set(expected)
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM django_migrations WHERE app = 'glossary'")
        applied = sorted(row[0] for row in cursor.fetchall())
    assert expected["glossary"] == applied[-1]


@pytest.mark.django_db
def test_the_container_healthcheck_script_passes_on_healthz_and_fails_when_down(live_server):
    script = [sys.executable, str(ROOT / "docker" / "healthcheck.py")]
    up = subprocess.run([*script, f"{live_server.url}/healthz"], capture_output=True, text=True)
    assert up.returncode == 0, up.stderr
    from tests.production.conftest import free_port

    down = subprocess.run(
        [*script, f"http://127.0.0.1:{free_port()}/healthz", "--timeout", "2"],
        capture_output=True,
        text=True,
    )
    assert down.returncode == 1
    assert "unhealthy" in down.stderr


def test_a_post_to_readyz_is_not_a_health_check(client, db):
    assert client.post("/readyz").status_code == 404


def test_readyz_reports_an_unreachable_database_and_healthz_still_answers():
    # A separate process, because this test's own database must stay reachable.
    port = free_port()
    script = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "c = Client()\n"
        "print(c.get('/healthz').status_code)\n"
        "r = c.get('/readyz')\n"
        "print(r.status_code)\n"
        "print(r.content.decode())\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{port}/gone",
        "REDIS_URL": "",
    }
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    healthz, readyz, body = result.stdout.split("\n", 2)
    assert healthz == "200"
    assert readyz == "503"
    assert '"database": {"ok": false' in body.replace("\n", "")
    assert f":{port}" not in body
