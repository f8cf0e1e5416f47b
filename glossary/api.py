"""The read-only JSON API, and its OpenAPI 3.1 description generated from the same metadata.

Every endpoint reads through the visibility rule in glossary.views and is served
through the public page cache. Lists are paginated with `page` (from 1) and
`page_size` (1 to 100).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.paginator import EmptyPage, Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from glossary.cache import public_page
from glossary.markdown import render_markdown
from glossary.models import Entry, EntryVersion
from glossary.search import search
from glossary.views import (
    live_versions,
    public_episodes,
    public_people,
    public_tags,
)

MAX_PAGE_SIZE = 100
API_VERSION = "1.0.0"


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Operation:
    path: str
    summary: str
    schema: str
    paginated: bool = False
    params: list[dict[str, Any]] = field(default_factory=list)


OPERATIONS: list[Operation] = []


def endpoint(
    path: str,
    summary: str,
    schema: str,
    *,
    paginated: bool = False,
    params: list[dict[str, Any]] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a view's OpenAPI metadata and wrap it: JSON errors, GET only, page cache."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        OPERATIONS.append(Operation(path, summary, schema, paginated, params or []))

        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
            try:
                return JsonResponse(
                    view(request, *args, **kwargs), json_dumps_params={"ensure_ascii": False}
                )
            except ApiError as exc:
                return JsonResponse({"error": exc.message}, status=exc.status)

        return require_safe(public_page(wrapper))

    return decorate


def _absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def _int_param(request: HttpRequest, name: str, default: int, low: int, high: int) -> int:
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"{name} must be a whole number, not {raw!r}.") from None
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be between {low} and {high}, not {value}.")
    return value


def paginate(
    request: HttpRequest, items: QuerySet[Any] | list[Any], render: Callable[[Any], Any]
) -> dict[str, Any]:
    size = _int_param(request, "page_size", settings.PUBLIC_API_PAGE_SIZE, 1, MAX_PAGE_SIZE)
    number = _int_param(request, "page", 1, 1, 10**9)
    paginator = Paginator(items, size)
    try:
        page = paginator.page(number)
    except EmptyPage:
        raise ApiError(
            404, f"There is no page {number}; the last page is {paginator.num_pages}."
        ) from None

    def link(n: int) -> str:
        query = request.GET.copy()
        query["page"] = str(n)
        return _absolute(f"{request.path}?{query.urlencode()}")

    return {
        "count": paginator.count,
        "page": number,
        "page_size": size,
        "next": link(number + 1) if page.has_next() else None,
        "previous": link(number - 1) if page.has_previous() else None,
        "results": [render(item) for item in page.object_list],
    }


# --- Representations ---------------------------------------------------------------


def _entry_summary(term: str, slug: str, summary: str) -> dict[str, Any]:
    return {
        "term": term,
        "slug": slug,
        "summary": summary,
        "url": _absolute(reverse("glossary:entry", args=[slug])),
        "api_url": _absolute(reverse("glossary:api-entry", args=[slug])),
    }


def _episode_ref(ep: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": ep["id"],
        "show": ep["show"]["name"],
        "season": ep["season"],
        "number": ep["number"],
        "title": ep["title"],
        "url": _absolute(
            reverse("glossary:episode", args=[ep["show"]["slug"], ep["season"], ep["number"]])
        ),
    }


def _person_ref(p: dict[str, Any] | None) -> dict[str, Any] | None:
    if not p:
        return None
    return {
        "name": p["name"],
        "slug": p["slug"],
        "url": _absolute(reverse("glossary:person", args=[p["slug"]])),
    }


def _org_ref(o: dict[str, Any] | None) -> dict[str, Any] | None:
    return {"name": o["name"], "slug": o["slug"]} if o else None


def _disclosure(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": d["kind"],
        "text": d["text"],
        "at": d["at"],
        "episode": _episode_ref(d["episode"]) if d["episode"] else None,
        "organisation": _org_ref(d["organisation"]),
        "person": _person_ref(d["person"]),
    }


def entry_detail_data(version: EntryVersion, entry: Entry, live_ids: set[int]) -> dict[str, Any]:
    data = version.data
    return {
        **_entry_summary(version.term, version.slug, version.summary),
        "aliases": data["aliases"],
        "tags": data["tags"],
        "body_markdown": data["body"],
        "body_html": render_markdown(data["body"]),
        "first_published": entry.first_published_at.isoformat()
        if entry.first_published_at
        else None,
        "updated": entry.significant_change_at.isoformat() if entry.significant_change_at else None,
        "correction_note": version.correction_note or None,
        "references": [
            {
                "episode": _episode_ref(r["episode"]),
                "at": r["at"],
                "speaker": _person_ref(r["speaker"]),
                "affiliation": _org_ref(r["affiliation"]),
                "text": r["text"],
                "disclosures": [_disclosure(d) for d in r["disclosures"]],
            }
            for r in data["references"]
        ],
        "disclosures": [_disclosure(d) for d in data["disclosures"]],
        "quotes": [
            {
                "text": q["text"],
                "verbatim": q["verbatim"],
                "lightly_edited": q["lightly_edited"],
                "speaker": _person_ref(q["speaker"]),
                "affiliation": _org_ref(q["affiliation"]),
                "episode": _episode_ref(q["episode"]),
                "start": q["start"],
                "end": q["end"],
            }
            for q in data["quotes"]
        ],
        "sources": [
            {
                "title": c["source"]["title"],
                "publisher": c["source"]["publisher"],
                "url": c["source"]["url"],
                "archive_url": c["source"]["archive_url"] or None,
                "status": c["source"]["citation_status"],
                "note": c["note"],
                "checked_on": c["checked_on"],
            }
            for c in data["citations"]
        ],
        # Unpublished targets are named as the page names them, without an address.
        "see_also": [
            {
                "text": s["link_text"],
                "note": s["note"],
                "entry": _entry_summary(s["term"], s["slug"], "")
                if s["entry_id"] in live_ids
                else None,
            }
            for s in data["see_also"]
        ],
    }


# --- Endpoints -----------------------------------------------------------------------

_PAGE_PARAMS = [
    {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1, "default": 1}},
    {
        "name": "page_size",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
    },
]


def _path_param(name: str, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": kind}}


@endpoint("/api/v1/entries/", "Published entries, A to Z", "EntrySummary", paginated=True)
def entries(request: HttpRequest) -> dict[str, Any]:
    rows = live_versions().order_by("term").values_list("term", "slug", "summary")
    return paginate(request, rows, lambda r: _entry_summary(*r))


@endpoint(
    "/api/v1/entries/{slug}/",
    "One published entry, as its page shows it",
    "Entry",
    params=[_path_param("slug")],
)
def entry(request: HttpRequest, slug: str) -> dict[str, Any]:
    version = live_versions().select_related("live_for").filter(slug=slug).first()
    if version is None:
        raise ApiError(404, "No published entry has this slug.")
    ids = [s["entry_id"] for s in version.data["see_also"]]
    live_ids = (
        set(Entry.objects.published().filter(pk__in=ids).values_list("pk", flat=True))
        if ids
        else set()
    )
    return entry_detail_data(version, version.live_for, live_ids)


def _episode_data(ep: Any) -> dict[str, Any]:
    return {
        "id": ep.pk,
        "show": ep.show.name,
        "season": ep.season,
        "number": ep.number,
        "title": ep.title,
        "air_date": ep.air_date.isoformat() if ep.air_date else None,
        "duration": ep.duration,
        "listen_url": ep.url or ep.audio_url or None,
        "url": _absolute(ep.get_absolute_url()),
        "api_url": _absolute(reverse("glossary:api-episode", args=[ep.pk])),
    }


@endpoint("/api/v1/episodes/", "Episodes that published entries draw on", "Episode", paginated=True)
def episodes(request: HttpRequest) -> dict[str, Any]:
    qs = public_episodes().select_related("show").order_by("show__name", "-season", "-number")
    return paginate(request, qs, _episode_data)


@endpoint(
    "/api/v1/episodes/{id}/",
    "One episode and the published entries drawn from it",
    "EpisodeDetail",
    params=[_path_param("id", "integer")],
)
def episode(request: HttpRequest, pk: int) -> dict[str, Any]:
    found = public_episodes().select_related("show").filter(pk=pk).first()
    if found is None:
        raise ApiError(404, "No public episode has this id.")
    sponsors = found.sponsorships.select_related("organisation").order_by("read_at")
    guests = found.appearances.select_related("person", "affiliation").order_by(
        "role", "person__name"
    )
    rows = (
        live_versions()
        .filter(episodes=found)
        .order_by("term")
        .values_list("term", "slug", "summary")
    )
    return {
        **_episode_data(found),
        "sponsors": [
            {"organisation": s.organisation.name, "slug": s.organisation.slug, "read_at": s.read_at}
            for s in sponsors
        ],
        "people": [
            {
                "name": a.person.name,
                "slug": a.person.slug,
                "role": a.role,
                "affiliation": a.affiliation.name if a.affiliation else None,
            }
            for a in guests
        ],
        "entries": [_entry_summary(*r) for r in rows],
    }


def _person_data(p: Any) -> dict[str, Any]:
    return {
        "name": p.name,
        "slug": p.slug,
        "url": _absolute(p.get_absolute_url()),
        "api_url": _absolute(reverse("glossary:api-person", args=[p.slug])),
    }


@endpoint(
    "/api/v1/people/", "People quoted or appearing on public episodes", "Person", paginated=True
)
def people(request: HttpRequest) -> dict[str, Any]:
    return paginate(request, public_people().order_by("name"), _person_data)


@endpoint(
    "/api/v1/people/{slug}/",
    "One person and the published entries that quote or cite them",
    "PersonDetail",
    params=[_path_param("slug")],
)
def person(request: HttpRequest, slug: str) -> dict[str, Any]:
    found = public_people().filter(slug=slug).first()
    if found is None:
        raise ApiError(404, "No public person has this slug.")
    rows = (
        live_versions().filter(people=found).order_by("term").values_list("term", "slug", "summary")
    )
    return {**_person_data(found), "entries": [_entry_summary(*r) for r in rows]}


def _tag_data(t: Any) -> dict[str, Any]:
    return {
        "name": t.name,
        "slug": t.slug,
        "entry_count": t.entry_count,
        "url": _absolute(reverse("glossary:tag", args=[t.slug])),
        "api_url": _absolute(reverse("glossary:api-tag", args=[t.slug])),
    }


@endpoint("/api/v1/tags/", "Topics carried by published entries", "Tag", paginated=True)
def tags(request: HttpRequest) -> dict[str, Any]:
    return paginate(request, public_tags().order_by("name"), _tag_data)


@endpoint(
    "/api/v1/tags/{slug}/",
    "One topic and its published entries",
    "TagDetail",
    params=[_path_param("slug")],
)
def tag(request: HttpRequest, slug: str) -> dict[str, Any]:
    found = public_tags().filter(slug=slug).first()
    if found is None:
        raise ApiError(404, "No published entry carries this topic.")
    rows = (
        live_versions().filter(tags=found).order_by("term").values_list("term", "slug", "summary")
    )
    return {**_tag_data(found), "entries": [_entry_summary(*r) for r in rows]}


@endpoint(
    "/api/v1/search/",
    "Search published entries; term and alias matches first",
    "SearchHit",
    paginated=True,
    params=[
        {
            "name": "q",
            "in": "query",
            "required": True,
            "schema": {"type": "string", "maxLength": 200},
        }
    ],
)
def search_entries(request: HttpRequest) -> dict[str, Any]:
    q = request.GET.get("q", "").strip()
    if not q:
        raise ApiError(400, "Give a search query in the q parameter.")
    hits = search(q, limit=MAX_PAGE_SIZE * 5)
    return paginate(
        request, hits, lambda h: {**_entry_summary(h.term, h.slug, h.summary), "fuzzy": h.fuzzy}
    )


# --- OpenAPI -----------------------------------------------------------------------

_STR = {"type": "string"}
_NSTR = {"type": ["string", "null"]}
_INT = {"type": "integer"}
_NINT = {"type": ["integer", "null"]}
_URI = {"type": "string", "format": "uri"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


SCHEMAS: dict[str, Any] = {
    "Error": _obj({"error": _STR}),
    "EntrySummary": _obj(
        {"term": _STR, "slug": _STR, "summary": _STR, "url": _URI, "api_url": _URI}
    ),
    "SearchHit": {
        "allOf": [_ref("EntrySummary"), _obj({"fuzzy": {"type": "boolean"}})],
    },
    "EpisodeRef": _obj(
        {"id": _INT, "show": _STR, "season": _INT, "number": _INT, "title": _STR, "url": _URI}
    ),
    "PersonRef": {"anyOf": [_obj({"name": _STR, "slug": _STR, "url": _URI}), {"type": "null"}]},
    "OrganisationRef": {"anyOf": [_obj({"name": _STR, "slug": _STR}), {"type": "null"}]},
    "Disclosure": _obj(
        {
            "kind": {"enum": ["sponsorship", "commercial_interest", "partnership", "other"]},
            "text": _STR,
            "at": _NINT,
            "episode": {"anyOf": [_ref("EpisodeRef"), {"type": "null"}]},
            "organisation": _ref("OrganisationRef"),
            "person": _ref("PersonRef"),
        }
    ),
    "Entry": {
        "allOf": [
            _ref("EntrySummary"),
            _obj(
                {
                    "aliases": {"type": "array", "items": _STR},
                    "tags": {"type": "array", "items": _STR},
                    "body_markdown": _STR,
                    "body_html": _STR,
                    "first_published": {"type": ["string", "null"], "format": "date-time"},
                    "updated": {"type": ["string", "null"], "format": "date-time"},
                    "correction_note": _NSTR,
                    "references": {
                        "type": "array",
                        "items": _obj(
                            {
                                "episode": _ref("EpisodeRef"),
                                "at": _INT,
                                "speaker": _ref("PersonRef"),
                                "affiliation": _ref("OrganisationRef"),
                                "text": _STR,
                                "disclosures": {"type": "array", "items": _ref("Disclosure")},
                            }
                        ),
                    },
                    "disclosures": {"type": "array", "items": _ref("Disclosure")},
                    "quotes": {
                        "type": "array",
                        "items": _obj(
                            {
                                "text": _STR,
                                "verbatim": _STR,
                                "lightly_edited": {"type": "boolean"},
                                "speaker": _ref("PersonRef"),
                                "affiliation": _ref("OrganisationRef"),
                                "episode": _ref("EpisodeRef"),
                                "start": _INT,
                                "end": _NINT,
                            }
                        ),
                    },
                    "sources": {
                        "type": "array",
                        "items": _obj(
                            {
                                "title": _STR,
                                "publisher": _STR,
                                "url": _URI,
                                "archive_url": _NSTR,
                                "status": {"enum": ["live", "dead", "unfit", "usurped"]},
                                "note": _STR,
                                "checked_on": {"type": ["string", "null"], "format": "date"},
                            }
                        ),
                    },
                    "see_also": {
                        "type": "array",
                        "items": _obj(
                            {
                                "text": _STR,
                                "note": _STR,
                                "entry": {"anyOf": [_ref("EntrySummary"), {"type": "null"}]},
                            }
                        ),
                    },
                }
            ),
        ]
    },
    "Episode": _obj(
        {
            "id": _INT,
            "show": _STR,
            "season": _INT,
            "number": _INT,
            "title": _STR,
            "air_date": {"type": ["string", "null"], "format": "date"},
            "duration": _NINT,
            "listen_url": _NSTR,
            "url": _URI,
            "api_url": _URI,
        }
    ),
    "EpisodeDetail": {
        "allOf": [
            _ref("Episode"),
            _obj(
                {
                    "sponsors": {
                        "type": "array",
                        "items": _obj({"organisation": _STR, "slug": _STR, "read_at": _NINT}),
                    },
                    "people": {
                        "type": "array",
                        "items": _obj(
                            {
                                "name": _STR,
                                "slug": _STR,
                                "role": {"enum": ["host", "guest"]},
                                "affiliation": _NSTR,
                            }
                        ),
                    },
                    "entries": {"type": "array", "items": _ref("EntrySummary")},
                }
            ),
        ]
    },
    "Person": _obj({"name": _STR, "slug": _STR, "url": _URI, "api_url": _URI}),
    "PersonDetail": {
        "allOf": [
            _ref("Person"),
            _obj({"entries": {"type": "array", "items": _ref("EntrySummary")}}),
        ]
    },
    "Tag": _obj({"name": _STR, "slug": _STR, "entry_count": _INT, "url": _URI, "api_url": _URI}),
    "TagDetail": {
        "allOf": [_ref("Tag"), _obj({"entries": {"type": "array", "items": _ref("EntrySummary")}})]
    },
}


def _page_schema(item: str) -> dict[str, Any]:
    return _obj(
        {
            "count": _INT,
            "page": _INT,
            "page_size": _INT,
            "next": {"type": ["string", "null"], "format": "uri"},
            "previous": {"type": ["string", "null"], "format": "uri"},
            "results": {"type": "array", "items": _ref(item)},
        }
    )


def openapi_document() -> dict[str, Any]:
    """OpenAPI 3.1 for every registered endpoint."""
    paths: dict[str, Any] = {}
    for op in OPERATIONS:
        body = _page_schema(op.schema) if op.paginated else _ref(op.schema)
        params = [*op.params, *(_PAGE_PARAMS if op.paginated else [])]
        responses: dict[str, Any] = {
            "200": {"description": "OK", "content": {"application/json": {"schema": body}}},
            "304": {"description": "Not modified since the ETag or date given"},
        }
        for code, why in (("400", "Bad parameter"), ("404", "Not found or not published")):
            responses[code] = {
                "description": why,
                "content": {"application/json": {"schema": _ref("Error")}},
            }
        paths[op.path] = {
            "get": {
                "summary": op.summary,
                "operationId": op.path.strip("/")
                .replace("/", "_")
                .replace("{", "")
                .replace("}", ""),
                "parameters": params,
                "responses": responses,
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{settings.PUBLIC_SITE_NAME} API",
            "version": API_VERSION,
            "description": "Read-only access to the published glossary. Nothing unpublished "
            "is ever returned. Responses carry ETag and Last-Modified; send them back for a 304.",
        },
        "servers": [{"url": settings.SITE_URL}],
        "paths": paths,
        "components": {"schemas": SCHEMAS},
    }


@require_safe
@public_page
def openapi(request: HttpRequest) -> JsonResponse:
    return JsonResponse(openapi_document(), json_dumps_params={"ensure_ascii": False})
