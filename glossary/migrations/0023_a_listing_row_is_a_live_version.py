"""On PostgreSQL, a listing row may exist only for an entry's live version, held by the database.

A foreign key from the listing's version to `Entry.live_version` (unique), checked at
commit: a transaction that withdraws or replaces a live version and leaves its listing
row behind does not commit, so every listing row any statement reads is a live
version's, and the list statements need not probe each row (glossary.selectors,
`_IS_LIVE`). Rows already left behind are deleted first (they were never shown: every
list read checked each row live until now); `manage.py rerender`, which every deploy
runs, counts the listings again. SQLite cannot add a key to a table it has; there the
list statements keep probing each row.
"""

from django.db import migrations

_KEY = "glossary_listing_version_is_live"


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    # Checked as each statement ends: a check left pending on the table would stop ALTER TABLE.
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    schema_editor.execute(
        "DELETE FROM glossary_listingname n WHERE NOT EXISTS (SELECT 1 FROM glossary_entry e "
        "WHERE e.live_version_id = n.listing_id)"
    )
    schema_editor.execute(
        "DELETE FROM glossary_listing l WHERE NOT EXISTS (SELECT 1 FROM glossary_entry e "
        "WHERE e.live_version_id = l.version_id)"
    )
    schema_editor.execute(
        f"ALTER TABLE glossary_listing ADD CONSTRAINT {_KEY} FOREIGN KEY (version_id) "
        "REFERENCES glossary_entry (live_version_id) DEFERRABLE INITIALLY DEFERRED"
    )
    schema_editor.execute("SET CONSTRAINTS ALL DEFERRED")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE glossary_listing DROP CONSTRAINT {_KEY}")


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0022_publicrecord_facts_outlive_their_version"),
    ]

    operations = [migrations.RunPython(forward, backward)]
