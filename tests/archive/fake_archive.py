"""A local fake of the Wayback Machine's Save Page Now 2 API, on a real HTTP server.

POST /save (form `url=`) answers with a job id; GET /save/status/<job_id> answers
`pending` as many times as the test asks, then `success` with a timestamp and the
original URL. A test scripts other answers (an error, a 429 with Retry-After, a 5xx)
and reads every request the fake received, with its Authorization header.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.linkcheck.server import LocalSite

TIMESTAMP = "20261120093000"


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    form: dict[str, str]
    authorization: str


@dataclass
class Reply:
    status: int
    body: dict[str, Any] | str
    headers: dict[str, str] = field(default_factory=dict)

    def response(self) -> web.Response:
        text = self.body if isinstance(self.body, str) else json.dumps(self.body)
        kind = "text/html" if isinstance(self.body, str) else "application/json"
        return web.Response(status=self.status, text=text, content_type=kind, headers=self.headers)


@dataclass
class FakeArchive(LocalSite):
    seen: list[Seen] = field(default_factory=list)
    # Scripted answers, used first to last before the defaults.
    save_replies: list[Reply] = field(default_factory=list)
    status_replies: list[Reply] = field(default_factory=list)
    # How many status checks answer "pending" before "success".
    pending_polls: int = 0
    jobs: dict[str, str] = field(default_factory=dict)  # job id -> URL
    # What `original_url` the success names, when not the URL asked for.
    original_url: str = ""
    http_status: int = 200
    timestamp: str = TIMESTAMP

    def reset(self) -> None:
        super().reset()
        self.seen.clear()
        self.save_replies.clear()
        self.status_replies.clear()
        self.jobs.clear()
        self.pending_polls = 0
        self.original_url = ""
        self.http_status = 200
        self.timestamp = TIMESTAMP

    def saves(self) -> list[Seen]:
        return [s for s in self.seen if s.method == "POST"]

    def polls(self) -> list[Seen]:
        return [s for s in self.seen if s.path.startswith("/save/status/")]

    async def save(self, request: web.Request) -> web.Response:
        form = {k: str(v) for k, v in (await request.post()).items()}
        self.seen.append(Seen("POST", request.path, form, request.headers.get("Authorization", "")))
        if self.save_replies:
            return self.save_replies.pop(0).response()
        job_id = f"spn2-{len(self.jobs) + 1}"
        self.jobs[job_id] = form["url"]
        return Reply(200, {"url": form["url"], "job_id": job_id}).response()

    async def job_status(self, request: web.Request) -> web.Response:
        job_id = request.match_info["job_id"]
        self.seen.append(Seen("GET", request.path, {}, request.headers.get("Authorization", "")))
        if self.status_replies:
            return self.status_replies.pop(0).response()
        if self.pending_polls > 0:
            self.pending_polls -= 1
            return Reply(200, {"status": "pending", "job_id": job_id}).response()
        if job_id not in self.jobs:
            return Reply(
                200, {"status": "error", "status_ext": "error:not-found", "job_id": job_id}
            ).response()
        return Reply(
            200,
            {
                "status": "success",
                "job_id": job_id,
                "timestamp": self.timestamp,
                "original_url": self.original_url or self.jobs[job_id],
                "http_status": self.http_status,
                "duration_sec": 6.2,
            },
        ).response()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/save", self.save)
        app.router.add_get("/save/status/{job_id}", self.job_status)
        return app
