"""The link checker's door speaks to an API: a POST with headers, any status's body."""

from __future__ import annotations

from typing import Any

import pytest
from yarl import URL

from editorial.linkcheck import guard, transport
from editorial.linkcheck.download import Refused, _AnyBody, exchange
from editorial.linkcheck.fetch import run
from tests.archive.fake_archive import FakeArchive, Reply


def test_a_post_carries_its_form_and_headers_and_an_error_answer_keeps_its_body(
    wayback: FakeArchive,
) -> None:
    wayback.save_replies.append(Reply(400, {"status": "error", "status_ext": "error:invalid-url"}))
    answer = exchange(
        "POST",
        f"{wayback.base}/save",
        headers=("Authorization: LOW a:b",),
        body=b"url=https%3A%2F%2Fvendor.example%2F",
        max_bytes=1024,
    )
    assert answer.status == 400
    assert b"error:invalid-url" in answer.body
    assert wayback.saves()[0].form == {"url": "https://vendor.example/"}
    assert wayback.saves()[0].authorization == "LOW a:b"


def test_headers_one_request_added_never_reach_the_next_on_a_reused_handle(
    wayback: FakeArchive,
) -> None:
    async def two_requests() -> None:
        limits = transport.Limits("test", 1.0, 1.0, 2.0, accept="application/json", keep=1)
        session = transport.Session(limits, guard.allowed_networks())
        try:
            post = transport.Request(
                "POST", f"{wayback.base}/save", headers=("Authorization: LOW a:b",), body=b"url=x"
            )
            await session.request(post, _AnyBody(URL(wayback.base), 1024))
            get = transport.Request("GET", f"{wayback.base}/save/status/spn2-1")
            await session.request(get, _AnyBody(URL(wayback.base), 1024))
        finally:
            await session.close()

    run(two_requests())
    assert [s.authorization for s in wayback.seen] == ["LOW a:b", ""]
    assert [s.method for s in wayback.seen] == ["POST", "GET"]


def test_a_private_address_is_refused_before_any_request(
    wayback: FakeArchive, settings: Any
) -> None:
    settings.LINKCHECK_ALLOW_PRIVATE = []
    with pytest.raises(Refused, match="was not requested"):
        exchange("POST", f"{wayback.base}/save", body=b"url=x", max_bytes=1024)
    assert wayback.seen == []
