"""The comments panel on the entry page, and the small pages its buttons post to.

Each button posts to its own address under the entry's (`CommentPages.urls`),
outside the entry's form, so commenting never saves the entry and saving the
entry never posts a comment. A refused comment comes back to the panel with
everything typed still in its box (kept in the session for the one redirect)
and the reason above it.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.admin import AdminSite
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse

from editorial import comments
from editorial.models import Comment
from editorial.permissions import Action, acting_user, can
from glossary.models import Entry

# The session key of a refused comment's typed text, shown once by the panel.
DRAFT_KEY = "comment_draft"


def panel_context(request: HttpRequest, entry: Entry) -> dict[str, Any]:
    """What the panel shows `request.user` on `entry`'s page."""
    draft = request.session.pop(DRAFT_KEY, None) if hasattr(request, "session") else None
    if not isinstance(draft, dict) or draft.get("entry") != entry.pk:
        draft = None
    found = comments.threads(entry)
    return {
        "threads": found,
        "open": sum(1 for t in found if not t.root.is_resolved),
        "can_comment": can(request.user, Action.COMMENT),
        "user_id": request.user.pk,
        "fields": Comment.Field.choices,
        "draft": draft,
        "add_url": reverse("admin:glossary_entry_comment_add", args=[entry.pk]),
    }


class CommentPages:
    """The panel's buttons, served under the entry admin's URLs."""

    def __init__(self, admin_site: AdminSite) -> None:
        self.admin_site = admin_site

    def urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        urls = [
            path(
                "<int:object_id>/comments/add/",
                wrap(self.add_view),
                name="glossary_entry_comment_add",
            )
        ]
        for name, view in [
            ("reply", self.reply_view),
            ("edit", self.edit_view),
            ("resolve", self.resolve_view),
            ("reopen", self.reopen_view),
        ]:
            urls.append(
                path(
                    f"<int:object_id>/comments/<int:comment_id>/{name}/",
                    wrap(view),
                    name=f"glossary_entry_comment_{name}",
                )
            )
        return urls

    @staticmethod
    def _post_only(request: HttpRequest) -> None:
        if request.method != "POST":
            raise PermissionDenied("Comments are posted with the buttons on the entry page.")

    @staticmethod
    def _back(entry_pk: int, anchor: str = "comments") -> HttpResponseRedirect:
        return HttpResponseRedirect(
            reverse("admin:glossary_entry_change", args=[entry_pk]) + f"#{anchor}"
        )

    def _comment(self, object_id: int, comment_id: int) -> Comment:
        return get_object_or_404(
            Comment.objects.select_related("entry", "parent__entry"),
            pk=comment_id,
            entry_id=object_id,
        )

    def _refused(
        self, request: HttpRequest, entry_pk: int, error: Exception, **typed: Any
    ) -> HttpResponseRedirect:
        messages.error(request, f"Nothing was posted: {error}")
        request.session[DRAFT_KEY] = {"entry": entry_pk, "error": str(error), **typed}
        return self._back(entry_pk, typed.get("anchor") or "comments")

    def add_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        self._post_only(request)
        entry = get_object_or_404(Entry, pk=object_id)
        field = request.POST.get("field", "")
        text = request.POST.get("text", "")
        quote = request.POST.get("quote", "")
        try:
            comment = comments.start_thread(
                entry, user=acting_user(request), field=field, text=text, quote=quote
            )
        except comments.CommentError as exc:
            return self._refused(
                request, entry.pk, exc, kind="thread", field=field, text=text, quote=quote
            )
        messages.success(request, "Comment posted. Readers never see comments.")
        return self._back(entry.pk, f"comment-{comment.pk}")

    def reply_view(self, request: HttpRequest, object_id: int, comment_id: int) -> HttpResponse:
        self._post_only(request)
        thread = self._comment(object_id, comment_id)
        text = request.POST.get("text", "")
        try:
            comment = comments.reply(thread, user=acting_user(request), text=text)
        except comments.CommentError as exc:
            return self._refused(
                request,
                object_id,
                exc,
                kind="reply",
                comment=thread.pk,
                text=text,
                anchor=f"comment-{thread.pk}",
            )
        messages.success(request, "Reply posted.")
        return self._back(object_id, f"comment-{comment.pk}")

    def edit_view(self, request: HttpRequest, object_id: int, comment_id: int) -> HttpResponse:
        self._post_only(request)
        comment = self._comment(object_id, comment_id)
        text = request.POST.get("text", "")
        try:
            comments.edit(comment, user=acting_user(request), text=text)
        except comments.CommentError as exc:
            return self._refused(
                request,
                object_id,
                exc,
                kind="edit",
                comment=comment.pk,
                text=text,
                anchor=f"comment-{comment.pk}",
            )
        messages.success(request, "Comment changed.")
        return self._back(object_id, f"comment-{comment.pk}")

    def resolve_view(self, request: HttpRequest, object_id: int, comment_id: int) -> HttpResponse:
        return self._state(request, object_id, comment_id, comments.resolve, "Thread resolved.")

    def reopen_view(self, request: HttpRequest, object_id: int, comment_id: int) -> HttpResponse:
        return self._state(request, object_id, comment_id, comments.reopen, "Thread reopened.")

    def _state(
        self, request: HttpRequest, object_id: int, comment_id: int, func: Any, done: str
    ) -> HttpResponse:
        self._post_only(request)
        comment = self._comment(object_id, comment_id)
        try:
            thread = func(comment, user=acting_user(request))
        except comments.CommentError as exc:
            messages.error(request, str(exc))
            return self._back(object_id)
        messages.success(request, done)
        return self._back(object_id, f"comment-{thread.pk}")
