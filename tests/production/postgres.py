"""Scratch PostgreSQL databases for tests that run the app in other processes.

They live on the server named by DATABASE_URL when that is PostgreSQL (as in
CI), else on the local server at 127.0.0.1:5432, and are dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

_DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"


def server_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = _DEFAULT_SERVER
    return database_url(url, "postgres")


def database_url(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def create_database(name: str) -> str:
    with psycopg.connect(server_url(), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return database_url(server_url(), name)


def drop_database(name: str) -> None:
    with psycopg.connect(server_url(), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@contextmanager
def scratch_database(prefix: str) -> Iterator[str]:
    """A new, empty database for the duration of the block; yields its URL."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    url = create_database(name)
    try:
        yield url
    finally:
        drop_database(name)
