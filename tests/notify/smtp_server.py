"""A real SMTP server on 127.0.0.1 that accepts, refuses or defers each recipient.

aiosmtpd runs on its own event loop in a thread. A test tells it which addresses
to refuse and with what reply ("550 5.1.1 No such user here", "451 4.3.0 Try
again later"); everything it accepts is kept as a parsed message, so a test reads
exactly what a mail server received over the wire.
"""

from __future__ import annotations

import asyncio
import threading
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

NO_SUCH_USER = "550 5.1.1 <{address}>: Recipient address rejected: User unknown"
TRY_LATER = "451 4.3.0 <{address}>: Temporary lookup failure, try again later"


class _Handler:
    def __init__(self, server: SMTPServer) -> None:
        self.server = server

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        with self.server.lock:
            self.server.recipients_seen.append(address)
            reply = self.server.refuse.get(address)
        if reply:
            return reply.format(address=address)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        with self.server.lock:
            self.server.received.append((list(envelope.rcpt_tos), message))
        return "250 2.0.0 Ok: queued"


class _Controller(Controller):
    """Listens on a port the system picks (port 0), then learns which one it got."""

    def _trigger_server(self) -> None:
        assert isinstance(self.server, asyncio.Server)
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


class SMTPServer:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.refuse: dict[str, str] = {}
        self.received: list[tuple[list[str], EmailMessage]] = []
        self.recipients_seen: list[str] = []
        self._controller = _Controller(_Handler(self), hostname="127.0.0.1", port=0)

    @property
    def port(self) -> int:
        return int(self._controller.port)

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def reset(self) -> None:
        with self.lock:
            self.refuse.clear()
            self.received.clear()
            self.recipients_seen.clear()

    def delivered_to(self) -> list[str]:
        """Every address the server accepted a message for, sorted."""
        with self.lock:
            return sorted(address for to, _ in self.received for address in to)

    def message_to(self, address: str) -> EmailMessage:
        with self.lock:
            [message] = [m for to, m in self.received if address in to]
        return message
