"""The benchmarks' trivial view (bench/web): routed only when BENCH_TRIVIAL_VIEW (demo.urls)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

# The benchmarks' yardstick is "a trivial 20 KB view": about the size of a public page, so a
# page's ratio to it measures the work of rendering, not of sending bytes. Built once.
BENCH_TRIVIAL_BYTES = 20 * 1024
_TRIVIAL_LINE = b"<p>The benchmark's yardstick: a fixed page, no query, no template.</p>\n"
BENCH_TRIVIAL_BODY = (_TRIVIAL_LINE * (BENCH_TRIVIAL_BYTES // len(_TRIVIAL_LINE) + 1))[
    :BENCH_TRIVIAL_BYTES
]


def bench_trivial(request: HttpRequest) -> HttpResponse:
    """The benchmark's yardstick: 20 KB, no query, no template. Routed only when
    BENCH_TRIVIAL_VIEW."""
    return HttpResponse(BENCH_TRIVIAL_BODY, content_type="text/html; charset=utf-8")
