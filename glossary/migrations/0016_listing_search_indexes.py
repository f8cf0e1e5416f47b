# PostgreSQL's search indexes move to the live listing (0015): a GIN index on the term's
# and aliases' words, on those and the summary's, and on every word, so each ranking tier
# of a search is one indexed condition (glossary.search; the body's tier reads the whole's
# index); and the trigram index over the term and aliases for substrings and misspellings.
# The old trigram index over every version's names goes: search no longer reads it, and it
# cost an index update on every saved version. SQLite keeps its FTS5 tables (0012).
# Not in the model's Meta, so SQLite never sees a GIN index.
#
# The listing's rows are rendered again whenever a page showing them is (listing_rows): room
# left on each page lets PostgreSQL rewrite a row where it is (a HOT update) without
# touching any index.

from django.contrib.postgres.indexes import GinIndex
from django.db import migrations

WORDS = [
    GinIndex(fields=[f"words_{w}"], name=f"listing_words_{w}_idx") for w in ("a", "ab", "abcd")
]
NAMES = GinIndex(fields=["names"], opclasses=["gin_trgm_ops"], name="listing_names_trgm_idx")
OLD_NAMES = GinIndex(
    fields=["search_names"], opclasses=["gin_trgm_ops"], name="entryversion_names_trgm_idx"
)
ROOM_TO_REWRITE = {"glossary_listing": 70, "glossary_listingname": 80, "glossary_listingcount": 50}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    listing = apps.get_model("glossary", "Listing")
    for index in [*WORDS, NAMES]:
        schema_editor.add_index(listing, index)
    schema_editor.remove_index(apps.get_model("glossary", "EntryVersion"), OLD_NAMES)
    for table, fillfactor in ROOM_TO_REWRITE.items():
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {fillfactor})")


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in ROOM_TO_REWRITE:
        schema_editor.execute(f"ALTER TABLE {table} RESET (fillfactor)")
    schema_editor.add_index(apps.get_model("glossary", "EntryVersion"), OLD_NAMES)
    listing = apps.get_model("glossary", "Listing")
    for index in [NAMES, *WORDS]:
        schema_editor.remove_index(listing, index)


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0015_live_listing"),
    ]

    operations = [migrations.RunPython(create_indexes, drop_indexes)]
