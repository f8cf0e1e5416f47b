"""The planning pages: My work, assigning from the entry, Plan an entry; who may open each,
and bad input coming back with what was typed."""

from __future__ import annotations

import datetime

import pytest
import time_machine

from editorial import assignments
from editorial.models import Assignment
from glossary.models import Entry
from tests.personas import NOW, client_for

pytestmark = pytest.mark.django_db

FRIDAY = datetime.date(2026, 12, 4)


@pytest.fixture(autouse=True)
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield


def test_my_work_lists_mine_overdue_first_with_newsroom_dates(make_entry, editor, writer):
    late = make_entry("Late one")
    assignments.assign(late, role="writer", assignee=writer, due_on=NOW.date(), user=editor)
    assignments.assign(
        make_entry("Next week"), role="writer", assignee=writer, due_on=FRIDAY, user=editor
    )
    assignments.assign(
        make_entry("Not mine"), role="writer", assignee=editor, due_on=FRIDAY, user=editor
    )

    with time_machine.travel(NOW + datetime.timedelta(days=1), tick=False):
        page = client_for(writer).get("/admin/my-work/")

    html = page.content.decode()
    assert page.status_code == 200
    assert [a.entry.term for a in page.context["open"]] == ["Late one", "Next week"]
    assert page.context["overdue"] == 1
    assert "Mon, Nov 30, 2026 <strong>(overdue)</strong>" in html
    assert "Not mine" not in html
    assert "/calendar/" in page.context["feed_url"]


def test_the_dashboard_links_to_my_work(editor):
    assert 'id="my-work-link"' in client_for(editor).get("/admin/dashboard/").content.decode()


def test_the_assignee_marks_done_from_my_work(make_entry, editor, writer):
    made = assignments.assign(
        make_entry("Doing"), role="writer", assignee=writer, due_on=FRIDAY, user=editor
    )
    response = client_for(writer).post(f"/admin/assignments/{made.pk}/done/")
    assert response.status_code == 302
    made.refresh_from_db()
    assert made.done_by == writer


@pytest.mark.parametrize(
    ("persona", "status"),
    [("editor", 200), ("admin", 200), ("writer", 403), ("fact_checker", 403), ("anonymous", 302)],
)
def test_only_those_who_may_assign_open_the_assign_and_plan_pages(
    make_entry, personas, persona, status
):
    entry = make_entry("Any")
    client = client_for(personas[persona])
    assert client.get(f"/admin/assign/{entry.pk}/").status_code == status
    assert client.get("/admin/plan/").status_code == status


def test_the_entry_page_offers_assigning_to_editors_only(make_entry, editor, writer):
    entry = make_entry("Any")
    assignments.assign(entry, role="writer", assignee=writer, due_on=FRIDAY, user=editor)
    as_editor = client_for(editor).get(f"/admin/glossary/entry/{entry.pk}/change/").content.decode()
    as_writer = client_for(writer).get(f"/admin/glossary/entry/{entry.pk}/change/").content.decode()
    assert "Writer: wanda_writer, due December 4, 2026" in as_editor
    assert f"/admin/assign/{entry.pk}/" in as_editor
    assert "Writer: wanda_writer, due December 4, 2026" in as_writer
    assert f"/admin/assign/{entry.pk}/" not in as_writer


def test_assigning_a_writer_as_fact_checker_comes_back_with_the_reason_and_the_input(
    make_entry, editor, writer
):
    entry = make_entry("Any")
    page = client_for(editor).post(
        f"/admin/assign/{entry.pk}/",
        {"role": "fact_checker", "assignee": writer.pk, "due_on": "2026-12-04", "note": "KEEP-ME"},
    )
    html = page.content.decode()
    assert page.status_code == 200
    assert "wanda_writer cannot fact-check entries" in html
    assert "KEEP-ME" in html and 'value="2026-12-04"' in html
    assert not Assignment.objects.exists()


def test_plan_an_entry_makes_a_draft_with_no_body_and_its_assignments(editor, writer, fact_checker):
    response = client_for(editor).post(
        "/admin/plan/",
        {
            "term": "Photonic fabric",
            "slug": "",
            "writer": writer.pk,
            "writer_due": "2026-12-04",
            "fact_checker": fact_checker.pk,
            "fact_checker_due": "2026-12-07",
            "note": "Cover the 2026 launches.",
        },
    )
    assert response.status_code == 302
    entry = Entry.objects.get(slug="photonic-fabric")
    assert (entry.status, entry.body, entry.created_by) == ("draft", "", editor)
    assert sorted(entry.assignments.values_list("role", "assignee__username")) == [
        ("fact_checker", "fiona_checker"),
        ("writer", "wanda_writer"),
    ]


def test_plan_an_entry_refuses_a_taken_address_and_keeps_the_input(make_entry, editor, writer):
    make_entry("Interconnect", slug="interconnect")
    page = client_for(editor).post(
        "/admin/plan/",
        {"term": "Interconnect", "slug": "", "writer": writer.pk, "writer_due": "2026-11-01"},
    )
    html = page.content.decode()
    assert page.status_code == 200
    assert "already has the address /glossary/interconnect/" in html
    assert "is already past" in html
    assert 'value="Interconnect"' in html
    assert Entry.objects.count() == 1


def test_plan_an_entry_wants_a_due_date_for_each_person(editor, writer):
    page = client_for(editor).post(
        "/admin/plan/", {"term": "Fabric", "writer": writer.pk, "writer_due": ""}
    )
    assert page.status_code == 200
    assert page.context["form"].errors["writer_due"]


def test_the_entry_list_assigns_several_entries_at_once(make_entry, editor, writer):
    first, second = make_entry("First"), make_entry("Second")
    client = client_for(editor)
    ask = client.post(
        "/admin/glossary/entry/",
        {"action": "assign_selected", "_selected_action": [first.pk, second.pk]},
    )
    assert ask.status_code == 200
    assert "Assign 2 entries" in ask.content.decode()

    done = client.post(
        "/admin/glossary/entry/",
        {
            "action": "assign_selected",
            "_selected_action": [first.pk, second.pk],
            "confirmed": "yes",
            "role": "writer",
            "assignee": writer.pk,
            "due_on": "2026-12-04",
        },
    )
    assert done.status_code == 302
    assert sorted(Assignment.objects.values_list("entry__term", flat=True)) == ["First", "Second"]


def test_the_entry_list_offers_no_assigning_to_a_writer(make_entry, writer):
    page = client_for(writer).get("/admin/glossary/entry/")
    assert "assign_selected" not in page.content.decode()


def test_the_assignments_list_is_read_only_for_everyone(make_entry, editor, writer, admin_user):
    made = assignments.assign(
        make_entry("Listed"), role="writer", assignee=writer, due_on=FRIDAY, user=editor
    )
    for person in (writer, editor, admin_user):
        client = client_for(person)
        listed = client.get("/admin/editorial/assignment/")
        assert listed.status_code == 200
        assert "Listed" in listed.content.decode()
        assert client.get("/admin/editorial/assignment/add/").status_code == 403
        client.post(f"/admin/editorial/assignment/{made.pk}/change/", {"due_on": "2026-12-31"})
        made.refresh_from_db()
        assert made.due_on == FRIDAY


@pytest.mark.parametrize(
    ("persona", "status"),
    [
        ("writer", 200),
        ("fact_checker", 200),
        ("editor", 200),
        ("outsider", 302),
        ("anonymous", 302),
    ],
)
def test_everyone_on_the_desk_has_a_my_work_page_and_no_one_else(personas, persona, status):
    assert client_for(personas[persona]).get("/admin/my-work/").status_code == status


def test_nobody_else_marks_a_writers_assignment_done_without_the_right_to_assign(
    make_entry, editor, writer, fact_checker
):
    made = assignments.assign(
        make_entry("Theirs"), role="writer", assignee=writer, due_on=FRIDAY, user=editor
    )
    assert client_for(fact_checker).post(f"/admin/assignments/{made.pk}/done/").status_code == 403
    assert client_for(writer).get(f"/admin/assignments/{made.pk}/done/").status_code == 403
    made.refresh_from_db()
    assert made.done_at is None
