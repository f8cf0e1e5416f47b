"""The demo's routes: only the benchmarks' trivial view, and only when a benchmark asks."""

from __future__ import annotations

from django.conf import settings
from django.urls import URLPattern, path

from demo import views

urlpatterns: list[URLPattern] = []

if settings.BENCH_TRIVIAL_VIEW:
    # Benchmarks only (bench/web): never enabled in production.
    urlpatterns.append(path("bench/trivial/", views.bench_trivial, name="bench-trivial"))
