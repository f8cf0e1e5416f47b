"""The local test server with pages a test can change between checks."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web

from tests.linkcheck.server import LocalSite


@dataclass
class ChangingSite(LocalSite):
    """LocalSite plus /pages/<name>, served from `pages` (status, HTML) as it is now."""

    pages: dict[str, tuple[int, str]] = field(default_factory=dict)

    def serve(self, name: str, html: str, status: int = 200) -> str:
        """Serve `html` at /pages/<name> from now on; returns its URL."""
        self.pages[name] = (status, html)
        return self.url(f"/pages/{name}")

    async def changeable(self, request: web.Request) -> web.Response:
        status, html = self.pages.get(request.match_info["name"], (404, "<p>No page.</p>"))
        return web.Response(status=status, text=html, content_type="text/html")

    def app(self) -> web.Application:
        app = super().app()
        app.router.add_route("*", "/pages/{name}", self.changeable)
        return app
