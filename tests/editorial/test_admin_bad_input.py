"""Hand-typed admin addresses and form values get Django's answer to bad input, never a 500.

A list filter value that names nothing shows the list unfiltered (a redirect to
``?e=1``); an object address that is not an id says the object does not exist.
Run on PostgreSQL too (as CI does): a NUL only fails there.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.contrib import admin
from django.contrib.admin import SimpleListFilter
from django.contrib.auth.models import User
from django.forms.utils import ErrorList
from django.urls import reverse

from editorial.admin.base import DeskModelAdmin
from editorial.admin.forms import QuietErrorList
from editorial.models import WorkflowEvent
from glossary.models import Entry, EpisodeReference
from tests.live import make_live_unchecked
from tests.personas import client_for
from tests.workflow.formdata import form_data

JUNK = ["abc", "1.5", "²", "\x00", "a\x00b", "9999", "99999999999999999999"]


def filter_parameters(model_admin: admin.ModelAdmin[Any]) -> list[str]:
    """Every query parameter the list filters and the date drill-down of an admin read."""
    names: list[str] = []
    for spec in model_admin.list_filter:
        if isinstance(spec, type) and issubclass(spec, SimpleListFilter):
            names.append(str(spec.parameter_name))
        elif isinstance(spec, str):
            names += [spec, f"{spec}__exact", f"{spec}__id__exact", f"{spec}__in"]
        else:
            raise AssertionError(f"teach this test the parameters of {spec!r}")
    if model_admin.date_hierarchy:
        field = model_admin.date_hierarchy
        names += [f"{field}__year", f"{field}__month", f"{field}__day"]
    return names


@pytest.fixture
def admin_client(admin_user: User) -> Any:
    return client_for(admin_user)


def test_a_show_filter_that_names_no_show_shows_the_list_unfiltered(admin_client, make_entry, show):
    make_entry("Interconnect")
    for value in ["abc", "1.5", "²", "\x00"]:
        response = admin_client.get(f"/admin/glossary/entry/?{urlencode({'show': value})}")
        assert response.status_code == 302, repr(value)
        assert response["Location"] == "/admin/glossary/entry/?e=1"
    page = admin_client.get("/admin/glossary/entry/?e=1")
    assert page.status_code == 200
    assert "Interconnect" in page.content.decode()


def test_a_show_filter_with_a_show_id_lists_the_entries_from_that_show(
    admin_client, make_entry, episode, person
):
    on_show = make_entry("On the show")
    EpisodeReference.objects.create(entry=on_show, episode=episode, at=5, speaker=person)
    make_entry("Elsewhere")
    page = admin_client.get(f"/admin/glossary/entry/?show={episode.show_id}").content.decode()
    assert "On the show" in page
    assert "Elsewhere" not in page


@pytest.mark.parametrize("page", ["change", "history"])
def test_an_entry_address_that_is_not_an_id_says_the_entry_does_not_exist(
    admin_client, make_entry, page
):
    make_entry("Interconnect")
    for object_id in ["abc", "1.5", "²", "\x00", "a\x00b"]:
        response = admin_client.get(f"/admin/glossary/entry/{quote(object_id)}/{page}/")
        assert response.status_code == 302, repr(object_id)
        assert response["Location"] == "/admin/"
        shown = admin_client.get("/admin/").content.decode()
        assert "doesn’t exist. Perhaps it was deleted?" in shown


def test_an_entry_history_address_with_a_missing_id_says_so_too(admin_client):
    response = admin_client.get("/admin/glossary/entry/424242/history/", follow=True)
    assert "Entry with ID “424242” doesn’t exist" in response.content.decode()


def test_comparing_with_a_version_that_is_not_a_number_is_not_found(admin_client, ready_entry):
    for value in ["abc", "²", "1.5", "\x00"]:
        url = f"/admin/glossary/entry/{ready_entry.pk}/compare/?{urlencode({'a': value})}"
        assert admin_client.get(url).status_code == 404, repr(value)
    ok = f"/admin/glossary/entry/{ready_entry.pk}/compare/?a=1&b=working"
    assert admin_client.get(ok).status_code == 200


def test_every_list_filter_of_every_admin_answers_junk_with_the_list(
    client, superuser, make_entry, episode
):
    client.force_login(superuser)
    make_entry("Interconnect")
    checked = 0
    for model, model_admin in admin.site._registry.items():
        if not isinstance(model_admin, DeskModelAdmin):
            continue
        changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for name in filter_parameters(model_admin):
            for value in JUNK:
                response = client.get(f"{changelist}?{urlencode({name: value})}")
                assert response.status_code in (200, 302), (changelist, name, value)
                checked += 1
    # Every admin with a filter was tried, Django's and django-axes' included.
    assert checked > 300


def test_every_object_address_of_every_admin_answers_an_id_that_is_not_one(
    client, superuser, make_entry
):
    client.force_login(superuser)
    make_entry("Interconnect")
    for model in admin.site._registry:
        changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for object_id in ["abc", "1.5", "²", "\x00", "99999999999999999999"]:
            for page in ["change/", "history/", "delete/"]:
                response = client.get(f"{changelist}{quote(object_id)}/{page}")
                # 403: read-only admins refuse deleting before reading the id, as Django does.
                assert response.status_code in (302, 403, 404), (changelist, object_id, page)


def test_the_user_and_sign_in_record_admins_are_guarded_too():
    for model_name in ["user", "group", "accessattempt", "accesslog", "accessfailurelog"]:
        found = [a for m, a in admin.site._registry.items() if m._meta.model_name == model_name]
        assert len(found) == 1 and isinstance(found[0], DeskModelAdmin), model_name


def test_a_publish_with_an_expected_version_that_is_not_a_number_is_answered(ready_entry, editor):
    workflow_url = f"/admin/glossary/entry/{ready_entry.pk}/publish/"
    response = client_for(editor).post(workflow_url, {"expected_version": "²"})
    # Refused (the draft is not in review), in words.
    assert response.status_code == 400
    assert "review" in response.content.decode()


def test_a_stale_edit_token_with_a_junk_version_still_names_who_saved(ready_entry, writer):
    wanda = client_for(writer)
    page = wanda.get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content.decode()
    form = form_data(page)
    form["edit_token"] = "stale|²"
    form["body"] = "Edited."
    response = wanda.post(f"/admin/glossary/entry/{ready_entry.pk}/change/", form)
    assert response.status_code == 200
    assert "saved this entry at" in response.content.decode()


def test_the_history_lists_a_version_with_no_author_and_the_schedulers_steps(
    admin_client, ready_entry, writer
):
    make_live_unchecked(ready_entry)
    WorkflowEvent.objects.create(
        entry=ready_entry,
        action=WorkflowEvent.Action.PUBLISH,
        from_status=Entry.Status.IN_REVIEW,
        to_status=Entry.Status.PUBLISHED,
        actor=None,
    )
    # As a script or an import that could not name its author leaves it (an account that
    # wrote a version cannot be deleted: tests/workflow/test_authors_are_kept.py).
    ready_entry.versions.update(created_by=None)
    response = admin_client.get(f"/admin/glossary/entry/{ready_entry.pk}/history/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "the scheduler" in page
    assert "<td>—</td>" in page


def test_an_alias_too_long_for_its_redirect_is_refused_naming_its_line(ready_entry, writer):
    wanda = client_for(writer)
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    form = form_data(wanda.get(url).content.decode())
    form["aliases"] = "NVLink\n" + "x" * 250
    response = wanda.post(url, form)
    assert response.status_code == 200
    assert "Line 2: “xxxx" in response.content.decode()
    assert "(250 characters; at most 200)" in response.content.decode()
    ready_entry.refresh_from_db()
    assert "x" * 250 not in ready_entry.aliases
    form["aliases"] = "NVLink\n" + "x" * 200
    assert wanda.post(url, form).status_code == 302


def test_an_error_list_renders_as_djangos_and_an_empty_one_as_nothing():
    assert str(QuietErrorList()) == str(ErrorList()) == ""
    assert QuietErrorList().as_ul() == ErrorList().as_ul() == ""
    full = ["Enter a whole number.", "<b>escaped</b>"]
    assert str(QuietErrorList(full, field_id="id_x")) == str(ErrorList(full, field_id="id_x"))
    assert QuietErrorList(full).as_text() == ErrorList(full).as_text()


def test_a_bad_inline_value_is_shown_beside_its_field_with_everything_typed_kept(
    ready_entry, writer
):
    wanda = client_for(writer)
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    page = wanda.get(url).content.decode()
    assert '<ul class="errorlist' not in page  # no empty lists either
    form = form_data(page)
    order = next(
        name for name in form if name.startswith("citations-0-") and name.endswith("order")
    )
    form[order] = "first"
    form["body"] = "Typed and kept."
    response = wanda.post(url, form)
    assert response.status_code == 200
    shown = response.content.decode()
    assert (
        '<ul class="errorlist" id="id_citations-0-order_error"><li>Enter a whole number.</li></ul>'
        in shown
    )
    assert "Typed and kept." in shown
