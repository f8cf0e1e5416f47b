"""The benchmarks' yardstick, a "trivial 20 KB view" every page is measured against, is
routed only for benchmarks."""

from django.test import RequestFactory

from demo import views


def test_the_trivial_view_answers_a_fixed_20_kb_body():
    request = RequestFactory().get("/bench/trivial/")
    first, second = views.bench_trivial(request), views.bench_trivial(request)
    assert len(first.content) == 20 * 1024
    assert first.content == second.content
    assert first["Content-Type"].startswith("text/html")


def test_the_trivial_view_is_not_routed_unless_a_benchmark_asks(client, db):
    assert client.get("/bench/trivial/").status_code == 404
