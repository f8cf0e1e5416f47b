"""Public, read-only pages. Every query starts from the one visibility rule."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from glossary.models import Entry, EntryRedirect


def home(request: HttpRequest) -> HttpResponse:
    entries = Entry.objects.published().select_related("live_version").order_by("term")
    return render(request, "glossary/home.html", {"entries": entries})


def entry(request: HttpRequest, slug: str) -> HttpResponse:
    found = (
        Entry.objects.published()
        .select_related("live_version")
        .filter(live_version__slug=slug)
        .first()
    )
    if found is None:
        targets = list(
            EntryRedirect.objects.filter(slug=slug, entry__live_version__isnull=False)
            .select_related("entry__live_version")
            .order_by("entry__term")
        )
        if len({t.entry_id for t in targets}) == 1:
            return redirect("glossary:entry", targets[0].entry.live_version.slug, permanent=True)
        if targets:
            return render(request, "glossary/alias_list.html", {"slug": slug, "targets": targets})
        raise Http404("No published entry at this address.")
    return render(request, "glossary/entry.html", {"entry": found, "version": found.live_version})
