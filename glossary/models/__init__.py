"""The glossary's content: shows and episodes, people, entries and what they cite.

An `Entry` row is the editors' working copy; readers only ever see the
`EntryVersion` its `live_version` points to (see docs/architecture.md).

One module a subject, each importing only modules above it here:
- `podcast`: shows, episodes and transcripts; people and organisations, their
  appearances and sponsorships.
- `entries`: the working copy: `Entry`, its names, and its parts (references, quotes,
  disclosures, see-also links).
- `sources`: cited pages, the citations of them, and the automatic link checks.
- `versions`: `EntryVersion`, the published document.
- `public_records`: what readers see of shared records, and who on the desk edited one.
- `public_pages`: the live listing and its counts, redirects, stored first pages, and the
  site generation.

Every public name is re-exported here: code imports models from `glossary.models`.
"""

from glossary.models.entries import (
    PUBLISHING_STATE,
    Disclosure,
    Entry,
    EntryName,
    EntryPart,
    EntryQuerySet,
    EpisodeReference,
    Quote,
    SeeAlso,
    name_keys,
)
from glossary.models.podcast import (
    Appearance,
    DeepLinkStyle,
    Episode,
    Organisation,
    Person,
    Show,
    Sponsorship,
    Transcript,
    TranscriptSegment,
    deep_link,
    validate_public_host,
)
from glossary.models.public_pages import (
    EntryRedirect,
    Listing,
    ListingCount,
    ListingName,
    SiteGeneration,
    StoredPage,
)
from glossary.models.public_records import PublicRecord, PublicRecordLink, RecordEdit
from glossary.models.sources import (
    CHANGED_SINCE_CONFIRMED,
    Citation,
    CitationQuerySet,
    LinkCheck,
    Source,
    SourceQuerySet,
    fingerprint_changed,
    freshness_cutoff,
    normalise_url,
    source_title,
)
from glossary.models.versions import EntryVersion, EntryVersionQuerySet

__all__ = [
    "CHANGED_SINCE_CONFIRMED",
    "PUBLISHING_STATE",
    "Appearance",
    "Citation",
    "CitationQuerySet",
    "DeepLinkStyle",
    "Disclosure",
    "Entry",
    "EntryName",
    "EntryPart",
    "EntryQuerySet",
    "EntryRedirect",
    "EntryVersion",
    "EntryVersionQuerySet",
    "Episode",
    "EpisodeReference",
    "LinkCheck",
    "Listing",
    "ListingCount",
    "ListingName",
    "Organisation",
    "Person",
    "PublicRecord",
    "PublicRecordLink",
    "Quote",
    "RecordEdit",
    "SeeAlso",
    "Show",
    "SiteGeneration",
    "Source",
    "SourceQuerySet",
    "Sponsorship",
    "StoredPage",
    "Transcript",
    "TranscriptSegment",
    "deep_link",
    "fingerprint_changed",
    "freshness_cutoff",
    "name_keys",
    "normalise_url",
    "source_title",
    "validate_public_host",
]
