"""Doing what desk users do, through the admin's own forms, for the integrity tests."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from editorial import workflow
from glossary.models import Entry
from tests.personas import client_for
from tests.workflow.formdata import form_data


def edit_entry(user: User, entry: Entry, **changes: str) -> Client:
    """Change fields of the entry's form and save it, as `user` would in the admin."""
    client = client_for(user)
    url = reverse("admin:glossary_entry_change", args=[entry.pk])
    data = form_data(client.get(url).content.decode())
    data.update(changes)
    response = client.post(url, data)
    assert response.status_code == 302, _errors(response)
    return client


def edit_object(user: User, admin_name: str, pk: int, **changes: str) -> None:
    """Change a reference object (person, episode, ...) through its admin form."""
    client = client_for(user)
    url = reverse(f"admin:{admin_name}_change", args=[pk])
    page = client.get(url)
    assert page.status_code == 200, f"{url}: {page.status_code}"
    data = form_data(page.content.decode(), form_id=_form_id(page.content.decode()))
    data.update(changes)
    response = client.post(url, data)
    assert response.status_code == 302, _errors(response)


def _form_id(html: str) -> str:
    match = re.search(r'<form [^>]*id="(\w+_form)"', html)
    assert match, "no admin change form on the page"
    return match.group(1)


def _errors(response: Any) -> str:
    html = response.content.decode()
    return " | ".join(re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', html, re.S))[:2000]


def publish(entry: Entry, *, writer: User, editor: User) -> None:
    """Submit (as the writer) and publish (as the editor) whatever the entry's working copy says."""
    entry.refresh_from_db()
    if entry.status in (Entry.Status.DRAFT, Entry.Status.CHANGES_REQUESTED):
        workflow.submit_for_review(entry, user=writer)
    # Some demo entries cite no source yet: the editor overrides that check, in writing.
    workflow.publish_entry(entry, user=editor, override_reason="Published for the test.")


def public_fingerprint(client: Client, urls: list[str]) -> dict[str, str]:
    """What readers get at each address: status and a hash of the body."""
    seen = {}
    for url in urls:
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content  # type: ignore[attr-defined]
        seen[url] = f"{response.status_code}:{hashlib.sha256(body).hexdigest()}"
    return seen


def jsonld(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert match, "no JSON-LD on the page"
    data: dict[str, Any] = json.loads(match.group(1))
    return data
