from typing import Any

from glossary import bulk
from glossary.management.database import DatabaseCommand
from glossary.models import (
    Entry,
    EntryVersion,
    Listing,
    ListingCount,
    ListingName,
    PublicRecord,
    PublicRecordLink,
    SiteGeneration,
    StoredPage,
)
from glossary.publishing import rerender_all

# What re-rendering rewrites: every live version's pages, the public records and their
# links, the live listing and its counts, the stored first pages.
REWRITTEN = (
    Entry,
    EntryVersion,
    Listing,
    ListingName,
    ListingCount,
    PublicRecord,
    PublicRecordLink,
    SiteGeneration,
    StoredPage,
)


class Command(DatabaseCommand):
    help = (
        "Render every live entry page (its API answer and its rows in the public lists) "
        "again from its published document, rebuild the live listing and the search "
        "indexes, and store every episode's, person's and organisation's first page again; "
        "then vacuum and analyse the tables it rewrote, so the site is served at full speed "
        "at once. Every deploy runs it after migrating (docker/release.sh); run it by hand "
        "after changing the entry page's or the lists' templates, glossary/entry_page.py or "
        "glossary/listing_rows.py. It also drops the public page cache. Published content does "
        "not change."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        with bulk.bulk_write(bulk.tables_of(*REWRITTEN)):
            count = rerender_all()
        self.stdout.write(
            self.style.SUCCESS(f"Re-rendered {count} live entr{'y' if count == 1 else 'ies'}.")
        )
