"""Django's PostgreSQL backend, with a health check that costs no round trip when all is well.

`CONN_HEALTH_CHECKS` (config.settings) has Django test a kept connection before a
request first uses it, so a request after a database restart reconnects instead of
failing. Django tests it with `SELECT 1`: a round trip on every request that reads
the database, as much as a sixth of the entry page's time.

A connection the server ended is not silent, though: on a restart, an
administrator's `pg_terminate_backend` or an idle timeout, the server sends the
reason and closes the socket, and the socket turns readable. Between requests an
idle connection has nothing to read. So a connection that is open, outside a
transaction, with nothing waiting on its socket is usable without asking; in any
other state (something to read, a transaction left open, a status other than OK)
it is tested Django's way. What this cannot see, a peer gone without closing the
socket, `SELECT 1` could only have found by waiting for the network's timeout.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        raw = self.connection
        if raw is None:
            return False
        pgconn = raw.pgconn
        if (
            pgconn.status == pq.ConnStatus.OK
            and pgconn.transaction_status == pq.TransactionStatus.IDLE
            and not _readable(pgconn.socket)
        ):
            return True
        return bool(super().is_usable())


def _readable(fd: int) -> bool:
    """Whether the socket has something to read (or was closed), without waiting."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))
