"""The read-only JSON API, declared once: each representation is a schema, and the OpenAPI
document (served at /api/openapi.json) is generated from the same declarations by
django-ninja.

Every endpoint reads through glossary.selectors (published content only) and
is served through the public page cache. Lists are paginated with `page`
(from 1) and `page_size` (1 to 100). An entry's representation is built when
its page is rendered at publish (`entry_detail`, stored in
EntryVersion.api_json), so the entry endpoint serves it without rendering
anything per request.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from django.conf import settings
from django.core.paginator import EmptyPage, Paginator
from django.core.validators import slug_unicode_re
from django.db import DatabaseError, InterfaceError, OperationalError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import get_conditional_response
from django.views.decorators.http import require_safe
from ninja import NinjaAPI, Query, Schema
from ninja.decorators import decorate_view
from ninja.errors import ValidationError as NinjaValidationError
from pydantic import Field

from glossary import document, listing_reads, selectors
from glossary.cache import content_etag, public_page
from glossary.document import EntryDocument, Facts
from glossary.entry_page import disclosure_parts, moment
from glossary.jsonld import LiveLinks
from glossary.markdown import render_markdown
from glossary.models import ListingCount, PublicRecord
from glossary.pagination import MAX_PAGE, num_pages
from glossary.paths import absolute, localise, path_for
from glossary.search import MAX_QUERY_LENGTH, Results, control_character, results
from glossary.throttle import limited

MAX_PAGE_SIZE = 100
API_VERSION = "1.2.0"  # 1.2: search pages say whether their count is exact (count_exact)

DisclosureKind = Literal["sponsorship", "commercial_interest", "partnership", "other"]
SourceStatus = Literal["live", "dead", "unfit", "usurped"]
Role = Literal["host", "guest"]


class ApiError(Exception):
    """An answer other than 200, with the message the client reads in `error`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# --- Representations ------------------------------------------------------------------


class Error(Schema):
    error: str


class EntrySummary(Schema):
    term: str
    slug: str
    summary: str
    url: str
    api_url: str


class SearchHit(EntrySummary):
    fuzzy: bool


class EpisodeRef(Schema):
    id: int
    show: str
    season: int
    number: int
    title: str
    url: str


class PersonRef(Schema):
    name: str
    slug: str
    url: str


class OrganisationRef(Schema):
    name: str
    slug: str


class DisclosureOut(Schema):
    kind: DisclosureKind
    text: str
    at: int | None
    episode: EpisodeRef | None
    organisation: OrganisationRef | None
    person: PersonRef | None


class ReferenceOut(Schema):
    episode: EpisodeRef
    at: int
    speaker: PersonRef | None
    affiliation: OrganisationRef | None
    text: str
    disclosures: list[DisclosureOut]


class QuoteOut(Schema):
    text: str
    verbatim: str
    lightly_edited: bool
    speaker: PersonRef
    affiliation: OrganisationRef | None
    episode: EpisodeRef
    start: int
    end: int | None
    transcript_checked: bool = Field(
        False,
        description="Found in the episode's transcript at `start`, said by `speaker`, when "
        "this version was saved (the page says “checked against the episode transcript”).",
    )
    transcript_passage: str = Field(
        "", description="The verbatim transcript around a checked quote, one segment a line."
    )
    listen_url: str | None = Field(
        None,
        description="Plays the episode from `start`, as the entry page's time links do: its "
        "audio file with a media fragment (`…/episode-44.mp3#t=1538`), or else its page in "
        "the show's deep-link style. Null when the episode has neither.",
    )


class SourceOut(Schema):
    title: str
    publisher: str
    url: str
    archive_url: str | None
    status: SourceStatus
    note: str
    checked_on: datetime.date | None


class SeeAlsoOut(Schema):
    text: str
    note: str
    # Only a target readers can open has an address.
    entry: EntrySummary | None


class EntryOut(EntrySummary):
    aliases: list[str]
    tags: list[str]
    body_markdown: str
    body_html: str
    first_published: datetime.datetime | None
    updated: datetime.datetime | None
    correction_note: str | None
    references: list[ReferenceOut]
    disclosures: list[DisclosureOut]
    quotes: list[QuoteOut]
    sources: list[SourceOut]
    see_also: list[SeeAlsoOut]


class EpisodeOut(Schema):
    id: int
    show: str
    season: int
    number: int
    title: str
    air_date: datetime.date | None
    duration: int | None
    listen_url: str | None
    url: str
    api_url: str


class SponsorOut(Schema):
    organisation: str
    slug: str
    read_at: int | None


class EpisodePersonOut(Schema):
    name: str
    slug: str
    role: Role
    affiliation: str | None


class EpisodeDetail(EpisodeOut):
    sponsors: list[SponsorOut]
    people: list[EpisodePersonOut]
    entries: list[EntrySummary]


class PersonOut(Schema):
    name: str
    slug: str
    url: str
    api_url: str


class PersonDetail(PersonOut):
    entries: list[EntrySummary]


class OrganisationOut(Schema):
    name: str
    slug: str
    website: str | None
    url: str
    api_url: str


class SponsoredEpisodeOut(Schema):
    episode: EpisodeRef
    read_at: int | None


class OrganisationDetail(OrganisationOut):
    sponsored: list[SponsoredEpisodeOut]
    entries: list[EntrySummary]


class TagOut(Schema):
    name: str
    slug: str
    entry_count: int
    url: str
    api_url: str


class TagDetail(TagOut):
    entries: list[EntrySummary]


class Page(Schema):
    count: int
    page: int
    page_size: int
    next: str | None
    previous: str | None


class EntryPage(Page):
    results: list[EntrySummary]


class SearchPage(Page):
    count_exact: bool = Field(
        description="False when more entries match than are counted (`count` is then the "
        "count's limit, 100); every page can still be read, following `next`."
    )
    results: list[SearchHit]


class EpisodePage(Page):
    results: list[EpisodeOut]


class PersonPage(Page):
    results: list[PersonOut]


class OrganisationPage(Page):
    results: list[OrganisationOut]


class TagPage(Page):
    results: list[TagOut]


class Paging(Schema):
    page: int = Field(1, ge=1, le=MAX_PAGE, description=f"Page number, from 1 to {MAX_PAGE:,}.")
    page_size: int = Field(
        settings.PUBLIC_API_PAGE_SIZE,
        ge=1,
        le=MAX_PAGE_SIZE,
        description=f"Results per page, 1 to {MAX_PAGE_SIZE}.",
    )


# --- Building representations ------------------------------------------------------------


def _entry_summary(term: str, slug: str, summary: str) -> EntrySummary:
    return EntrySummary(
        term=term,
        slug=slug,
        summary=summary,
        url=absolute(path_for("glossary:entry", slug)),
        api_url=absolute(path_for("glossary:api-entry", slug)),
    )


def entry_summary_json(term: str, slug: str, summary: str) -> str:
    """An entry as the API's lists show it, as JSON text (rendered at publish by
    glossary.listing_rows, so a list joins rows instead of validating each)."""
    return _entry_summary(term, slug, summary).model_dump_json()


def _episode_ref(facts: Facts, episode_id: int) -> EpisodeRef:
    ep = facts.episodes[episode_id]
    show = facts.shows[ep.show]
    return EpisodeRef(
        id=ep.id,
        show=show.name,
        season=ep.season,
        number=ep.number,
        title=ep.title,
        url=absolute(path_for("glossary:episode", show.slug, ep.season, ep.number)),
    )


def _person_ref(facts: Facts, person_id: int | None) -> PersonRef | None:
    if person_id is None:
        return None
    p = facts.people[person_id]
    return PersonRef(name=p.name, slug=p.slug, url=absolute(path_for("glossary:person", p.slug)))


def _org_ref(org: document.Organisation | None) -> OrganisationRef | None:
    return OrganisationRef(name=org.name, slug=org.slug) if org else None


def _disclosure(facts: Facts, d: document.Disclosure) -> DisclosureOut:
    text, at, _ = disclosure_parts(facts, d)
    return DisclosureOut(
        kind=d.kind,  # type: ignore[arg-type]
        text=text,
        at=at,
        episode=_episode_ref(facts, d.episode) if d.episode is not None else None,
        organisation=_org_ref(facts.organisations.get(d.organisation or 0)),
        person=_person_ref(facts, d.person),
    )


def entry_detail(
    doc: EntryDocument,
    *,
    facts: Facts,
    live_links: LiveLinks,
    first_published: datetime.datetime | None,
    updated: datetime.datetime | None,
    correction_note: str,
) -> str:
    """The entry endpoint's answer for a live version, as JSON text (rendered at publish)."""
    out = EntryOut(
        **_entry_summary(doc.term, doc.slug, doc.summary).model_dump(),
        aliases=list(doc.aliases),
        tags=[t.name for t in doc.tags],
        body_markdown=doc.body,
        body_html=render_markdown(doc.body),
        first_published=first_published,
        updated=updated,
        correction_note=correction_note or None,
        references=[
            ReferenceOut(
                episode=_episode_ref(facts, r.episode),
                at=r.at,
                speaker=_person_ref(facts, r.speaker),
                affiliation=_org_ref(facts.affiliation(r.episode, r.speaker)),
                text=r.text,
                disclosures=[_disclosure(facts, d) for d in r.disclosures],
            )
            for r in doc.references
        ],
        disclosures=[_disclosure(facts, d) for d in doc.disclosures],
        quotes=[
            QuoteOut(
                text=q.text,
                verbatim=q.verbatim,
                lightly_edited=q.lightly_edited,
                speaker=_person_ref(facts, q.speaker),  # type: ignore[arg-type]
                affiliation=_org_ref(facts.affiliation(q.episode, q.speaker)),
                episode=_episode_ref(facts, q.episode),
                start=q.start,
                end=q.end,
                transcript_checked=q.check is not None and q.check.verified,
                transcript_passage=q.check.passage if q.check and q.check.verified else "",
                listen_url=moment(facts, q.episode, q.start).href or None,
            )
            for q in doc.quotes
        ],
        sources=[
            SourceOut(
                title=facts.sources[c.source].title,
                publisher=facts.sources[c.source].publisher,
                url=facts.sources[c.source].url,
                archive_url=facts.sources[c.source].archive_url or None,
                status=facts.sources[c.source].citation_status,  # type: ignore[arg-type]
                note=c.note,
                checked_on=c.checked_on,
            )
            for c in doc.citations
        ],
        see_also=[
            SeeAlsoOut(
                text=s.link_text or (live_links[s.entry][0] if s.entry in live_links else s.term),
                note=s.note,
                entry=_entry_summary(*live_links[s.entry], "") if s.entry in live_links else None,
            )
            for s in doc.see_also
        ],
    )
    return out.model_dump_json()


def _episode_out(record: PublicRecord, shows: dict[int, PublicRecord]) -> EpisodeOut:
    episode = document.Episode.model_validate(record.data)
    show = shows.get(episode.show)
    return EpisodeOut(
        id=record.object_id,
        show=show.name if show else "",
        season=episode.season,
        number=episode.number,
        title=episode.title,
        air_date=episode.air_date,
        duration=episode.duration,
        listen_url=episode.listen_url or None,
        url=absolute(path_for("glossary:episode", *record.slug.split("/"))),
        api_url=absolute(path_for("glossary:api-episode", record.object_id)),
    )


def _episodes_out(records: list[PublicRecord]) -> list[EpisodeOut]:
    shows = selectors.records_by_id(
        PublicRecord.Kind.SHOW, (document.Episode.model_validate(r.data).show for r in records)
    )
    return [_episode_out(r, shows) for r in records]


def _person_out(record: PublicRecord) -> PersonOut:
    return PersonOut(
        name=record.name,
        slug=record.slug,
        url=absolute(path_for("glossary:person", record.slug)),
        api_url=absolute(path_for("glossary:api-person", record.slug)),
    )


def _organisation_out(record: PublicRecord) -> OrganisationOut:
    return OrganisationOut(
        name=record.name,
        slug=record.slug,
        website=record.data.get("url") or None,
        url=absolute(path_for("glossary:organisation", record.slug)),
        api_url=absolute(path_for("glossary:api-organisation", record.slug)),
    )


def _tag_out(record: Any) -> TagOut:
    return TagOut(
        name=record.name,
        slug=record.slug,
        entry_count=record.entry_count or 0,
        url=absolute(path_for("glossary:tag", record.slug)),
        api_url=absolute(path_for("glossary:api-tag", record.slug)),
    )


def _entries(versions: QuerySet[Any]) -> list[EntrySummary]:
    rows = versions.order_by("term").values_list("term", "slug", "summary")
    return [_entry_summary(*r) for r in rows]


T = TypeVar("T")


def _paginate(
    request: HttpRequest,
    paging: Paging,
    items: QuerySet[Any] | Sequence[Any] | Results,
    out: Callable[[Any], T],
) -> dict[str, Any]:
    paginator = Paginator(items, paging.page_size)
    try:
        page = paginator.page(paging.page)
    except EmptyPage:
        raise ApiError(
            404, f"There is no page {paging.page}; the last page is {paginator.num_pages}."
        ) from None

    def link(n: int) -> str:
        query = request.GET.copy()
        query["page"] = str(n)
        return absolute(f"{request.path}?{query.urlencode()}")

    return {
        "count": paginator.count,
        "page": paging.page,
        "page_size": paging.page_size,
        "next": link(paging.page + 1) if page.has_next() else None,
        "previous": link(paging.page - 1) if page.has_previous() else None,
        "results": [out(item) for item in page.object_list],
    }


def _is_slug(text: str) -> bool:
    """Whether `text` could be a slug at all; anything else (a NUL, a slash) names nothing
    and must not reach the database, which cannot even hold some of it."""
    return slug_unicode_re.fullmatch(text) is not None


# --- The API ------------------------------------------------------------------------------

api = NinjaAPI(
    title=f"{settings.PUBLIC_SITE_NAME} API",
    version=API_VERSION,
    description="Read-only access to the published glossary. Nothing unpublished is ever "
    "returned. Responses carry ETag and Last-Modified; send them back for a 304.",
    openapi_url=None,
    docs_url=None,
    urls_namespace="glossary-api",
)

# 429: over the client's limit (with Retry-After); 503: the database is unreachable
# (answered by config.outage, with Retry-After).
ERRORS: dict[int, type[Schema]] = {400: Error, 404: Error, 429: Error, 503: Error}
# The parameters a list reads; the page cache keys on these and ignores any other.
PAGING = ("page", "page_size")
# Every client's API calls count against one limit (429 with Retry-After beyond it).
LIMIT = limited("api", "PUBLIC_API_RATE_LIMIT")


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def _database_unavailable(request: HttpRequest, exc: DatabaseError) -> HttpResponse:
    # Not the API's to answer: raised on, it reaches the project's outage middleware
    # (ninja would otherwise answer a traceback when DEBUG is on).
    raise exc


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return api.create_response(request, {"error": exc.message}, status=exc.status)


@api.exception_handler(NinjaValidationError)
def _bad_parameter(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    """A parameter we cannot read: 400 with a sentence naming it, not pydantic's report."""
    problem = exc.errors[0] if exc.errors else {}
    name = str(problem.get("loc", ["", "parameter"])[-1])
    raw = request.GET.get(name, "")
    kind = problem.get("type", "")
    if kind in ("int_parsing", "int_type"):
        message = f"{name} must be a whole number, not {raw!r}."
    elif kind in ("greater_than_equal", "less_than_equal"):
        high = {"page_size": MAX_PAGE_SIZE, "page": MAX_PAGE}.get(name)
        bounds = f"between 1 and {high:,}" if high else "at least 1"
        message = f"{name} must be {bounds}, not {raw}."
    elif kind == "missing":
        message = f"Give the {name} parameter."
    elif kind == "string_pattern_mismatch" and name == "q":
        message = _query_problem(raw)
    else:
        message = f"{name} is not valid: {problem.get('msg', 'check its value')}."
    return api.create_response(request, {"error": message}, status=400)


@api.get(
    "/entries/",
    response={200: EntryPage, **ERRORS},
    url_name="api-entries",
    summary="Published entries, A to Z",
)
@decorate_view(public_page(reads=PAGING), LIMIT)
def entries(request: HttpRequest, paging: Query[Paging]) -> HttpResponse:
    # Each item rendered at publish (glossary.listing_rows) and read a page at a time from the
    # live listing's A–Z index, counted from the kept total: nothing validated per request.
    total = listing_reads.listing_count(ListingCount.TOTAL, 0)
    pages = num_pages(total, paging.page_size)
    if paging.page > pages:
        raise ApiError(404, f"There is no page {paging.page}; the last page is {pages}.")
    rows = listing_reads.listed_a_to_z(
        "l.api_row",
        offset=(paging.page - 1) * paging.page_size,
        limit=paging.page_size,
    )
    return _page_answer(
        request, paging, total, [localise(row) for (row,) in rows], has_next=paging.page < pages
    )


def _page_answer(
    request: HttpRequest,
    paging: Paging,
    count: int,
    results: list[str],
    *,
    has_next: bool,
    **extra: Any,
) -> HttpResponse:
    """A page of a list, `results` already JSON, with the envelope every list answers with."""

    def link(n: int) -> str:
        query = request.GET.copy()
        query["page"] = str(n)
        return absolute(f"{request.path}?{query.urlencode()}")

    head = {
        "count": count,
        **extra,
        "page": paging.page,
        "page_size": paging.page_size,
        "next": link(paging.page + 1) if has_next else None,
        "previous": link(paging.page - 1) if paging.page > 1 else None,
    }
    body = json.dumps(head)[:-1] + ', "results": [' + ", ".join(results) + "]}"
    return HttpResponse(body, content_type="application/json")


@api.get(
    "/entries/{slug}/",
    response={200: EntryOut, **ERRORS},
    url_name="api-entry",
    summary="One published entry, as its page shows it",
)
@decorate_view(public_page, LIMIT)
def entry(request: HttpRequest, slug: str) -> HttpResponse:
    stored = selectors.live_api_answer(slug) if _is_slug(slug) else None
    if stored is None:
        raise ApiError(404, "No published entry has this slug.")
    # Rendered and validated against EntryOut when the version was published.
    return HttpResponse(stored, content_type="application/json")


@api.get(
    "/episodes/",
    response={200: EpisodePage, **ERRORS},
    url_name="api-episodes",
    summary="Episodes that published entries draw on",
)
@decorate_view(public_page(reads=PAGING), LIMIT)
def episodes(request: HttpRequest, paging: Query[Paging]) -> dict[str, Any]:
    result = _paginate(request, paging, selectors.public_episodes(), lambda r: r)
    result["results"] = _episodes_out(result["results"])
    return result


@api.get(
    "/episodes/{id}/",
    response={200: EpisodeDetail, **ERRORS},
    url_name="api-episode",
    summary="One episode and the published entries drawn from it",
)
@decorate_view(public_page, LIMIT)
def episode(request: HttpRequest, id: int) -> EpisodeDetail:  # noqa: A002 - the path's name
    found = selectors.public_episodes().filter(object_id=id).first()
    if found is None:
        raise ApiError(404, "No public episode has this id.")
    facts = document.Episode.model_validate(found.data)
    orgs = selectors.records_by_id(
        PublicRecord.Kind.ORGANISATION,
        [s.organisation for s in facts.sponsors]
        + [a.affiliation for a in facts.appearances if a.affiliation],
    )
    people = selectors.records_by_id(
        PublicRecord.Kind.PERSON, [a.person for a in facts.appearances]
    )
    sponsors = sorted(facts.sponsors, key=lambda s: (s.read_at is None, s.read_at or 0))
    return EpisodeDetail(
        **_episodes_out([found])[0].model_dump(),
        sponsors=[
            SponsorOut(
                organisation=orgs[s.organisation].name,
                slug=orgs[s.organisation].slug,
                read_at=s.read_at,
            )
            for s in sponsors
            if s.organisation in orgs
        ],
        people=[
            EpisodePersonOut(
                name=people[a.person].name,
                slug=people[a.person].slug,
                role=a.role,  # type: ignore[arg-type]
                affiliation=orgs[a.affiliation].name if a.affiliation in orgs else None,
            )
            for a in facts.appearances
            if a.person in people
        ],
        entries=_entries(selectors.live_versions_naming(PublicRecord.Kind.EPISODE, id)),
    )


@api.get(
    "/people/",
    response={200: PersonPage, **ERRORS},
    url_name="api-people",
    summary="People quoted or appearing on public episodes",
)
@decorate_view(public_page(reads=PAGING), LIMIT)
def people(request: HttpRequest, paging: Query[Paging]) -> dict[str, Any]:
    return _paginate(request, paging, selectors.public_people(), _person_out)


@api.get(
    "/people/{slug}/",
    response={200: PersonDetail, **ERRORS},
    url_name="api-person",
    summary="One person and the published entries that quote or cite them",
)
@decorate_view(public_page, LIMIT)
def person(request: HttpRequest, slug: str) -> PersonDetail:
    found = selectors.public_record(PublicRecord.Kind.PERSON, slug) if _is_slug(slug) else None
    if found is None:
        raise ApiError(404, "No public person has this slug.")
    return PersonDetail(
        **_person_out(found).model_dump(),
        entries=_entries(selectors.live_versions_naming(PublicRecord.Kind.PERSON, found.object_id)),
    )


@api.get(
    "/organisations/",
    response={200: OrganisationPage, **ERRORS},
    url_name="api-organisations",
    summary="Sponsors of public episodes, organisations their guests speak for, and "
    "organisations published entries disclose",
)
@decorate_view(public_page(reads=PAGING), LIMIT)
def organisations(request: HttpRequest, paging: Query[Paging]) -> dict[str, Any]:
    return _paginate(request, paging, selectors.public_organisations(), _organisation_out)


@api.get(
    "/organisations/{slug}/",
    response={200: OrganisationDetail, **ERRORS},
    url_name="api-organisation",
    summary="One organisation: the public episodes it sponsored and the published entries "
    "that name it",
)
@decorate_view(public_page, LIMIT)
def organisation(request: HttpRequest, slug: str) -> OrganisationDetail:
    found = (
        selectors.public_record(PublicRecord.Kind.ORGANISATION, slug) if _is_slug(slug) else None
    )
    if found is None:
        raise ApiError(404, "No public organisation has this slug.")
    sponsored: list[tuple[PublicRecord, int | None]] = []
    for record in selectors.public_episodes():
        facts = document.Episode.model_validate(record.data)
        sponsored += [
            (record, s.read_at) for s in facts.sponsors if s.organisation == found.object_id
        ]
    outs = _episodes_out([r for r, _ in sponsored])
    return OrganisationDetail(
        **_organisation_out(found).model_dump(),
        sponsored=[
            SponsoredEpisodeOut(
                episode=EpisodeRef(
                    id=out.id,
                    show=out.show,
                    season=out.season,
                    number=out.number,
                    title=out.title,
                    url=out.url,
                ),
                read_at=read_at,
            )
            for out, (_, read_at) in zip(outs, sponsored, strict=True)
        ],
        entries=_entries(
            selectors.live_versions_naming(PublicRecord.Kind.ORGANISATION, found.object_id)
        ),
    )


@api.get(
    "/tags/",
    response={200: TagPage, **ERRORS},
    url_name="api-tags",
    summary="Topics carried by published entries",
)
@decorate_view(public_page(reads=PAGING), LIMIT)
def tags(request: HttpRequest, paging: Query[Paging]) -> dict[str, Any]:
    return _paginate(request, paging, selectors.public_tags(), _tag_out)


@api.get(
    "/tags/{slug}/",
    response={200: TagDetail, **ERRORS},
    url_name="api-tag",
    summary="One topic and its published entries",
)
@decorate_view(public_page, LIMIT)
def tag(request: HttpRequest, slug: str) -> TagDetail:
    found = selectors.public_tags().filter(slug=slug).first() if _is_slug(slug) else None
    if found is None:
        raise ApiError(404, "No published entry carries this topic.")
    return TagDetail(
        **_tag_out(found).model_dump(),
        entries=_entries(selectors.live_versions_naming(PublicRecord.Kind.TAG, found.object_id)),
    )


# What q may hold, declared in the OpenAPI document and enforced by the same pattern:
# no control characters but tab, newline and carriage return, and something besides
# spaces. Plain escapes only, read alike by Python, JavaScript and pydantic's engine.
_CONTROLS = r"\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F"
_SPACES = r"\t\n\r \xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000"
QUERY_PATTERN = rf"^[^{_CONTROLS}]*[^{_CONTROLS}{_SPACES}][^{_CONTROLS}]*$"


class SearchQuery(Paging):
    q: str = Field(
        ...,
        min_length=1,
        max_length=MAX_QUERY_LENGTH,
        pattern=QUERY_PATTERN,
        description="What to find: words, not only spaces, and no control characters "
        "but tab and newline.",
    )


def _query_problem(raw: str) -> str:
    found = control_character(raw)
    if found is None:
        return "Give a search query in the q parameter."
    at, char = found
    return f"q cannot contain control characters; character {at + 1} is U+{ord(char):04X}."


@api.get(
    "/search/",
    response={200: SearchPage, **ERRORS},
    url_name="api-search",
    summary="Search published entries; term and alias matches first",
)
@decorate_view(public_page(reads=("q", *PAGING)), LIMIT)
def search_entries(request: HttpRequest, query: Query[SearchQuery]) -> HttpResponse:
    q = query.q.strip()
    if not q or control_character(q) is not None:  # QUERY_PATTERN already refused both
        raise ApiError(400, _query_problem(query.q))
    found = results(q, shows="api_row")
    start = (query.page - 1) * query.page_size
    # One more than the page: is there a next one? (The total is counted up to a limit.)
    hits = found[start : start + query.page_size + 1]
    if query.page > 1 and not hits:
        raise ApiError(404, f"There is no page {query.page} of results for this search.")
    has_next = len(hits) > query.page_size
    hits = hits[: query.page_size]
    if query.page == 1 and not has_next:
        count, exact = len(hits), True
    else:
        count, exact = found.count(), found.count_exact
    fuzzy = ', "fuzzy": true}' if found.fuzzy else ', "fuzzy": false}'
    return _page_answer(
        request,
        query,
        count,
        [hit.api_row[:-1] + fuzzy for hit in hits],
        has_next=has_next,
        count_exact=exact,
    )


def openapi_document() -> dict[str, Any]:
    """OpenAPI 3.1 for every endpoint, from the same declarations the endpoints use."""
    doc = api.get_openapi_schema(path_prefix="/api/v1")
    doc["servers"] = [{"url": settings.SITE_URL}]
    doc["info"]["title"] = f"{settings.PUBLIC_SITE_NAME} API"
    return dict(doc)


@require_safe
def openapi(request: HttpRequest) -> HttpResponse:
    """The document, with an ETag of its own bytes: it changes with a release, not a publish,
    so it is served without the database (and while the database is down)."""
    response = JsonResponse(openapi_document(), json_dumps_params={"ensure_ascii": False})
    etag = content_etag(response.content)
    response.headers["Cache-Control"] = "public, max-age=0, must-revalidate"
    answer = get_conditional_response(request, etag=etag, response=response) or response
    answer.headers["ETag"] = etag
    return answer


def url_patterns() -> list[Any]:
    """The endpoints' URL patterns, to include under api/v1/ in glossary.urls.

    Without ninja's own root page: the API is described at /api/openapi.json.
    """
    return [p for p in api.urls[0] if getattr(p, "name", None) != "api-root"]
