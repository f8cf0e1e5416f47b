"""Setting a show's own public host in the admin (Show.public_host; docs/show-sites.md)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from glossary.models import EntryVersion, Show
from glossary.show_site import _known
from tests.personas import client_for
from tests.workflow.formdata import form_data

HOST = "glossary.demo-show.example"


def test_a_bad_host_is_refused_naming_the_problem_and_keeping_what_was_typed(
    demo: Any, editor: User
) -> None:
    show = Show.objects.get(slug="demo-show")
    page = reverse("admin:glossary_show_change", args=[show.pk])
    client = client_for(editor)
    data = form_data(client.get(page).content.decode(), "show_form")
    data["public_host"] = "https://Glossary.Demo-Show.example/"
    response = client.post(page, data)
    assert response.status_code == 200
    shown = response.content.decode()
    assert "Enter the host name alone" in shown
    assert 'value="https://Glossary.Demo-Show.example/"' in shown
    data["public_host"] = HOST
    assert "add it to SHOW_PUBLIC_HOSTS" in client.post(page, data).content.decode()
    show.refresh_from_db()
    assert show.public_host is None


def test_a_host_set_on_the_desk_serves_the_show_and_records_no_version(
    demo: Any, editor: User, settings: Any
) -> None:
    settings.SHOW_PUBLIC_HOSTS = [HOST]
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, HOST]
    show = Show.objects.get(slug="demo-show")
    page = reverse("admin:glossary_show_change", args=[show.pk])
    client = client_for(editor)
    data = form_data(client.get(page).content.decode(), "show_form")
    data["public_host"] = HOST
    versions = EntryVersion.objects.count()
    assert client.post(page, data).status_code == 302
    assert EntryVersion.objects.count() == versions
    try:
        home = Client(HTTP_HOST=HOST).get("/").content.decode()
        assert 'href="/glossary/interconnect/"' in home
        assert f'<link rel="canonical" href="http://{HOST}/">' in home
    finally:
        _known.forget()
