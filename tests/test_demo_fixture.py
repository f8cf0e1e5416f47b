"""The `demo` fixture (tests/conftest.py): every test here asks for it, so the module loads
the demo once, and each test still sees only the demo, whatever the test before it did."""

from django.db import connection

from glossary.models import Entry


def test_a_module_whose_every_database_test_asks_for_the_demo_shares_one_load(demo):
    # The module's transaction holding the demo, and this test's savepoint inside it.
    assert len(connection.atomic_blocks) == 2
    assert Entry.objects.filter(slug="interconnect").exists()


def test_what_a_test_does_to_the_demo_is_rolled_back_after_it(demo):
    Entry.objects.filter(slug="interconnect").update(term="Changed by a test")
    Entry.objects.exclude(slug="interconnect").delete()
    assert Entry.objects.count() == 1


def test_the_next_test_sees_the_demo_as_loaded(demo):
    assert Entry.objects.get(slug="interconnect").term == "Interconnect"
    assert Entry.objects.count() >= demo["entries"] > 1
