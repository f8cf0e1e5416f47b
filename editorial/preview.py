"""Previews of unpublished versions, rendered exactly as the public page would be.

Everything here lives under /preview/, which the public site's draft-leak checks
exclude: these pages show drafts on purpose. Each response is marked noindex
(header and meta tag) and `Cache-Control: private, no-store`, so no shared cache
or search engine keeps a draft.

Staff preview the working copy or any version from the admin. A share link is a
signed token naming one version, valid for PREVIEW_LINK_MAX_AGE_HOURS, that
works without a login: the signature is the permission.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.safestring import mark_safe

from editorial import newsroom
from editorial.models import ShareLink
from editorial.permissions import Action, require
from glossary import document, entry_page, publishing
from glossary.models import Entry, EntryVersion

app_name = "preview"

SHARE_SALT = "editorial.preview.share-link"


def share_max_age() -> datetime.timedelta:
    return datetime.timedelta(hours=settings.PREVIEW_LINK_MAX_AGE_HOURS)


def make_share_token(link: ShareLink) -> str:
    # A new salt: links from before links could be revoked no longer open anything.
    return signing.dumps({"l": link.pk}, salt=SHARE_SALT, compress=True)


def share_url(link: ShareLink) -> str:
    return reverse("preview:shared", args=[make_share_token(link)])


class NotShareable(Exception):
    """The entry cannot be shared now; the message says why and what to do."""


def create_share_link(entry: Entry, *, user: Any) -> ShareLink:
    """A new link to the latest version (saved first if the working copy moved on).

    Not of an archived entry, nor of text withdrawn from readers (unchanged since, changed
    and changed back, or rolled back to): a withdrawal stops the entry's links
    (workflow.revoke_share_links), and a new link made by anyone who may share would show
    the withdrawn page to whoever had it. A preview of the text changed since is shared
    as usual.
    """
    if entry.status == Entry.Status.ARCHIVED:
        raise NotShareable(
            f"“{entry.term}” is archived, so no preview link is made: restore it first."
        )
    version = version_for_sharing(entry, user=user)
    withdrawn = entry.live_version_id is None and (
        version.published_at is not None
        # Changed and changed back, or rolled back to: the same text is as withdrawn.
        or entry.versions.filter(published_at__isnull=False, data=version.data).exists()
    )
    if withdrawn:
        raise NotShareable(
            f"Version {version.number} of “{entry.term}” says what was withdrawn from readers, "
            "so no preview link is made: change the entry first."
        )
    now = timezone.now()
    return ShareLink.objects.create(
        entry=entry,
        version=version,
        created_by=user,
        created_at=now,
        expires_at=now + share_max_age(),
    )


def revoke_link(link: ShareLink, *, user: Any) -> bool:
    require(user, Action.SHARE_PREVIEW, link.entry)
    return bool(
        ShareLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now(), revoked_by=user, revoked_because="revoked"
        )
    )


def version_for_sharing(entry: Entry, *, user: Any) -> EntryVersion:
    """The version a share link shows: the latest, saved first if the working copy moved on."""
    require(user, Action.SHARE_PREVIEW, entry)
    latest = entry.versions.order_by("-number").first()
    if latest is not None and latest.data == document.build(entry).dump():
        return latest
    return publishing.save_version(entry, user=user, comment="Saved for a preview link.")


def _render(
    request: HttpRequest,
    version: EntryVersion,
    *,
    banner: str,
    expires: Any = None,
    status: int = 200,
) -> HttpResponse:
    doc = document.load(version.data)
    article = entry_page.render_article(doc, publishing.live_links(doc))
    # The public entry page's template and context (glossary/entry.html), minus what
    # only a live page has: a canonical address, structured data, correction history
    # and the "last updated" date.
    context = {
        "page_title": version.term,
        "page_description": version.summary,
        "site_name": getattr(settings, "PUBLIC_SITE_NAME", "Glossary"),
        "page_html": mark_safe(article),  # noqa: S308 - rendered from a sanitised document
        "banner": banner,
        "expires": expires,
        # As the desk that made the link wrote it (the share page, the entry's panel).
        "expires_label": newsroom.format_instant(expires) if expires else "",
    }
    response = render(request, "preview/entry.html", context, status=status)
    return _private(response)


def _private(response: HttpResponse) -> HttpResponse:
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Cache-Control"] = "private, no-store"
    patch_cache_control(response, private=True, no_store=True)
    return response


def _status_label(entry: Entry) -> str:
    label = Entry.Status(entry.status).label.lower()
    return f"{label}, live version differs" if entry.is_live else f"{label}, not published"


@staff_member_required
def working_copy(request: HttpRequest, entry_id: int) -> HttpResponse:
    """The entry as it stands in the admin right now, saved or not as a version."""
    require(request.user, Action.VIEW)
    entry = get_object_or_404(Entry, pk=entry_id)
    require(request.user, Action.VIEW, entry)
    version = EntryVersion(entry=entry, number=0, data=document.build(entry).dump())
    version.term, version.summary = entry.term, entry.summary
    banner = f"Preview of the working copy of “{entry.term}” ({_status_label(entry)})."
    return _render(request, version, banner=banner)


@staff_member_required
def version_view(request: HttpRequest, entry_id: int, number: int) -> HttpResponse:
    require(request.user, Action.VIEW)
    version = get_object_or_404(
        EntryVersion.objects.select_related("entry"), entry_id=entry_id, number=number
    )
    require(request.user, Action.VIEW, version.entry)
    live = (
        " This is the version readers see." if version.entry.live_version_id == version.pk else ""
    )
    banner = f"Preview of version {version.number} of “{version.term}”.{live}"
    return _render(request, version, banner=banner)


def _gone(request: HttpRequest, message: str) -> HttpResponse:
    response = render(request, "preview/gone.html", {"message": message}, status=410)
    return _private(response)


def shared(request: HttpRequest, token: str) -> HttpResponse:
    """A share link: no login; the signed token names a link that must still work."""
    try:
        payload = signing.loads(token, salt=SHARE_SALT)
    except signing.BadSignature:
        raise Http404("This preview link is not valid.") from None
    link_id = payload.get("l") if isinstance(payload, dict) else None
    link = (
        ShareLink.objects.select_related("version").filter(pk=link_id).first()
        if isinstance(link_id, int)
        else None
    )
    if link is None:
        raise Http404("This preview link's entry no longer exists.")
    if link.revoked_at is not None:
        return _gone(request, "This preview link was withdrawn. Ask the editor who sent it.")
    if timezone.now() >= link.expires_at:
        hours = settings.PREVIEW_LINK_MAX_AGE_HOURS
        return _gone(
            request,
            f"This preview link has expired: links work for {hours} hours. "
            "Ask the editor who sent it for a new one.",
        )
    version = link.version
    banner = (
        f"Preview of version {version.number} of “{version.term}”, shared for review. "
        "It is not published; readers cannot see it."
    )
    return _render(request, version, banner=banner, expires=link.expires_at)


urlpatterns = [
    path("entry/<int:entry_id>/", working_copy, name="working_copy"),
    path("entry/<int:entry_id>/v<int:number>/", version_view, name="version"),
    path("s/<str:token>/", shared, name="shared"),
]
