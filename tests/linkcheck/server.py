"""A real HTTP server on 127.0.0.1 that serves every case the checker must classify.

It runs aiohttp.web on its own event loop in a thread and records every request
it receives, so tests can prove that a refused URL never reached it.
"""

from __future__ import annotations

import asyncio
import gzip
import ssl
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from aiohttp import web

PAGE = """<!doctype html><html><head><title>{title}</title>
<script>var rotating = "{noise}";</script><style>.x{{color:red}}</style></head>
<body><nav>Home | About</nav>
<div class="ad-slot" id="ad-top">{ad}</div>
<main><h1>{title}</h1><p>{text}</p><p>Updated at {clock}.</p></main>
<aside class="sidebar">Trending: {noise}</aside>
<footer>© The Publisher</footer></body></html>"""

# What a script-built page (a single-page app without server rendering) sends.
APP_SHELL = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>NVLink | Vendor</title><link rel="stylesheet" href="/static/app.css">
<script defer src="/static/app.7f3a.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div></body></html>"""


def page(
    text: str = "Interconnect links chips.",
    *,
    ad: str = "Buy now",
    noise: str = "1",
    clock: str = "10:15",
    title: str = "A page",
) -> str:
    return PAGE.format(text=text, ad=ad, noise=noise, clock=clock, title=title)


@dataclass
class LocalSite:
    host: str = "127.0.0.1"
    port: int = 0
    requests: list[tuple[str, str]] = field(default_factory=list)
    counters: Counter[str] = field(default_factory=Counter)
    active: Counter[str] = field(default_factory=Counter)
    peak_active: int = 0
    start_times: list[float] = field(default_factory=list)
    user_agents: list[str] = field(default_factory=list)
    peers: list[object] = field(default_factory=list)  # the client's (address, port) per request
    request_times: list[float] = field(default_factory=list)
    ssl_context: ssl.SSLContext | None = None
    # Set when a client hung up on an endless body at that path (the checker stopped reading).
    hung_up: defaultdict[str, threading.Event] = field(
        default_factory=lambda: defaultdict(threading.Event)
    )
    # Body bytes the server handed to the connection per path for the streamed
    # bodies (/long, /download), counted until the client hung up.
    bytes_sent: Counter[str] = field(default_factory=Counter)

    @property
    def base(self) -> str:
        scheme = "https" if self.ssl_context else "http"
        return f"{scheme}://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    def paths(self) -> list[str]:
        return [path for _method, path in self.requests]

    def reset(self) -> None:
        self.requests.clear()
        self.counters.clear()
        self.start_times.clear()
        self.user_agents.clear()
        self.peers.clear()
        self.request_times.clear()
        self.hung_up.clear()
        self.bytes_sent.clear()
        self.peak_active = 0

    # --- handlers -----------------------------------------------------------

    def _count(self, request: web.Request) -> int:
        key = request.path_qs
        self.counters[key] += 1
        return self.counters[key]

    async def ok(self, request: web.Request) -> web.Response:
        return web.Response(text=page(), content_type="text/html")

    async def empty(self, request: web.Request) -> web.Response:
        """200 with a zero-length HTML body: a CMS that lost the page's content."""
        return web.Response(body=b"", content_type="text/html")

    async def app_shell(self, request: web.Request) -> web.Response:
        """A page built in the browser: a title, a script and an empty mount point."""
        return web.Response(text=APP_SHELL, content_type="text/html")

    async def no_content(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def empty_download(self, request: web.Request) -> web.Response:
        """A file answered with Content-Length: 0."""
        return web.Response(body=b"", content_type="application/octet-stream")

    async def root(self, request: web.Request) -> web.Response:
        return web.Response(text=page("Welcome home."), content_type="text/html")

    async def head_405(self, request: web.Request) -> web.Response:
        if request.method == "HEAD":
            return web.Response(status=405)
        return web.Response(text=page("Only GET here."), content_type="text/html")

    async def redirect(self, request: web.Request) -> web.Response:
        status = int(request.match_info["status"])
        return _redirect(status, request.query.get("to", "/ok"))

    async def loop_a(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop-b")

    async def loop_b(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop-a")

    async def status(self, request: web.Request) -> web.Response:
        code = int(request.match_info["code"])
        headers = {}
        if "challenge" in request.query:
            headers["cf-mitigated"] = "challenge"
        if "retry_after" in request.query:
            headers["Retry-After"] = request.query["retry_after"]
        return web.Response(status=code, text=f"status {code}", headers=headers)

    async def flaky(self, request: web.Request) -> web.Response:
        """500 on the first request for this query string, then a page."""
        if self._count(request) == 1:
            return web.Response(status=500, text="oops")
        return web.Response(text=page("Recovered."), content_type="text/html")

    async def busy_once(self, request: web.Request) -> web.Response:
        """429 with Retry-After on the first request for this query, then a page."""
        if self._count(request) == 1:
            return web.Response(
                status=429, headers={"Retry-After": request.query.get("after", "1")}
            )
        return web.Response(text=page("Thanks for waiting."), content_type="text/html")

    async def slow(self, request: web.Request) -> web.Response:
        await asyncio.sleep(float(request.query.get("seconds", "5")))
        return web.Response(text=page("Finally."), content_type="text/html")

    async def reset_connection(self, request: web.Request) -> web.Response:
        assert request.transport is not None
        request.transport.abort()  # RST-style close before any response bytes
        raise asyncio.CancelledError

    async def endless(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        await response.prepare(request)
        if request.method == "HEAD":
            return response
        chunk = b"<p>" + b"more words " * 6000 + b"</p>\n"
        try:
            while True:
                await response.write(chunk)
        except ConnectionError:  # the checker hung up at its byte cap, as it should
            return response

    async def _stream_forever(
        self, request: web.Request, response: web.StreamResponse, chunk: bytes, pause: float
    ) -> web.StreamResponse:
        """Write `chunk` until the client hangs up (and note that it did)."""
        try:
            while True:
                await response.write(chunk)
                self.bytes_sent[request.path] += len(chunk)
                if pause:
                    await asyncio.sleep(pause)
        except ConnectionError:
            self.hung_up[request.path].set()
            return response

    async def long_page(self, request: web.Request) -> web.StreamResponse:
        """A page whose body never ends: after `</main>` (?after=main) or after
        `</html>` (?after=html) comes an endless tail, fast or (?slow=1) trickling.
        """
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        await response.prepare(request)
        if request.query.get("after") == "html":
            head, tail = long_page_head("html"), b"<p>after the end</p>\n" * 500
        else:
            head, tail = long_page_head("main"), b"<p>footer words</p>\n" * 500
        await response.write(head)
        self.bytes_sent[request.path] += len(head)
        slow = request.query.get("slow") == "1"
        return await self._stream_forever(
            request, response, tail[:40] if slow else tail, 0.05 * slow
        )

    async def download(self, request: web.Request) -> web.StreamResponse:
        """An endless binary download at a path that does not look like a file."""
        response = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
        await response.prepare(request)
        return await self._stream_forever(request, response, b"\x00" * 65536, 0.0)

    async def html_at_pdf_path(self, request: web.Request) -> web.Response:
        return web.Response(text=page("Not a PDF after all."), content_type="text/html")

    async def pdf_refusing_head(self, request: web.Request) -> web.Response:
        if request.method == "HEAD":
            return web.Response(status=405)
        return web.Response(body=b"%PDF-1.7 ...", content_type="application/pdf")

    async def changing(self, request: web.Request) -> web.Response:
        n = self._count(request)
        return web.Response(text=page(f"Version {n} of the text."), content_type="text/html")

    async def ad_rotating(self, request: web.Request) -> web.Response:
        n = self._count(request)
        return web.Response(
            text=page("The steady text.", ad=f"Ad number {n}", noise=str(n), clock=f"10:{n:02d}"),
            content_type="text/html",
        )

    async def binary(self, request: web.Request) -> web.Response:
        return web.Response(body=b"%PDF-1.7 ...", content_type="application/pdf")

    async def track(self, request: web.Request) -> web.Response:
        """Slow-ish page that tracks how many requests are active at once."""
        self.active["all"] += 1
        self.peak_active = max(self.peak_active, self.active["all"])
        self.start_times.append(asyncio.get_running_loop().time())
        try:
            await asyncio.sleep(float(request.query.get("hold", "0.05")))
            return web.Response(text=page("Tracked."), content_type="text/html")
        finally:
            self.active["all"] -= 1

    # --- plumbing -----------------------------------------------------------

    @web.middleware
    async def record(self, request: web.Request, handler):
        self.requests.append((request.method, request.path_qs))
        self.request_times.append(asyncio.get_running_loop().time())
        self.user_agents.append(request.headers.get("User-Agent", ""))
        self.peers.append(
            request.transport.get_extra_info("peername") if request.transport else None
        )
        return await handler(request)

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self.record])
        app.router.add_route("*", "/", self.root)
        app.router.add_route("*", "/ok", self.ok)
        app.router.add_route("*", "/empty", self.empty)
        app.router.add_route("*", "/app-shell", self.app_shell)
        app.router.add_route("*", "/no-content", self.no_content)
        app.router.add_route("*", "/empty-file", self.empty_download)
        app.router.add_route("*", "/head-405", self.head_405)
        app.router.add_route("*", "/redirect/{status}", self.redirect)
        app.router.add_route("*", "/loop-a", self.loop_a)
        app.router.add_route("*", "/loop-b", self.loop_b)
        app.router.add_route("*", "/status/{code}", self.status)
        app.router.add_route("*", "/flaky", self.flaky)
        app.router.add_route("*", "/busy-once", self.busy_once)
        app.router.add_route("*", "/slow", self.slow)
        app.router.add_route("*", "/reset", self.reset_connection)
        app.router.add_route("*", "/endless", self.endless)
        app.router.add_route("*", "/changing", self.changing)
        app.router.add_route("*", "/ad-rotating", self.ad_rotating)
        app.router.add_route("*", "/file.pdf", self.binary)
        app.router.add_route("*", "/track/{name}", self.track)
        app.router.add_route("*", "/not-found", self.not_found_page)
        app.router.add_route("*", "/long", self.long_page)
        app.router.add_route("*", "/download", self.download)
        app.router.add_route("*", "/page.pdf", self.html_at_pdf_path)
        app.router.add_route("*", "/refuses-head.pdf", self.pdf_refusing_head)
        app.router.add_route("*", "/gzip", self.gzipped)
        return app

    async def gzipped(self, request: web.Request) -> web.Response:
        """The page gzip-compressed, for a client that says it can read that."""
        if "gzip" not in request.headers.get("Accept-Encoding", ""):
            return web.Response(text=page("Sent as it is."), content_type="text/html")
        body = gzip.compress(page("Sent compressed.").encode())
        headers = {"Content-Encoding": "gzip", "Content-Type": "text/html; charset=utf-8"}
        return web.Response(body=body, headers=headers)

    async def not_found_page(self, request: web.Request) -> web.Response:
        return web.Response(text=page("Sorry, no such page."), content_type="text/html")

    def start(self) -> None:
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        async def serve() -> None:
            self._runner = web.AppRunner(self.app(), handle_signals=False, access_log=None)
            await self._runner.setup()
            site = web.TCPSite(self._runner, self.host, self.port, ssl_context=self.ssl_context)
            await site.start()
            sockets = site._server.sockets
            self.port = sockets[0].getsockname()[1]
            ready.set()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(serve())
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="linkcheck-test-server", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("test server did not start")

    def stop(self) -> None:
        async def shutdown() -> None:
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


LONG_PAGE_TEXT = "The main text of a long page, complete well before its end."


def long_page_head(end: str) -> bytes:
    """What /long sends before its endless tail: through `</main>` or through `</html>`."""
    html = page(LONG_PAGE_TEXT)
    cut = html.index("</main>") + len("</main>") if end == "main" else len(html)
    return html[:cut].encode()


def _redirect(status: int, location: str) -> web.Response:
    return web.Response(status=status, headers={"Location": location})
