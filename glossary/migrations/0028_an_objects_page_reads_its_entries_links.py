# A person's, episode's or organisation's page listed its entries by joining each name row
# to its listing for a term and a slug, then escaping both: a fifth of the person page's
# statement and a hundred escapes a request (bench/README.md). Each name row now carries
# the entry's link as the page lists it, rendered at publish (glossary.listing_rows); here it
# is written for the rows already kept, from their listings, as listing_rows writes it.

from django.db import migrations, models


def _escaped(column):
    """SQL escaping `column` for HTML as django.utils.html.escape does (& first)."""
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")):
        column = f"replace({column}, '{char}', '{entity}')"
    return f"replace({column}, '''', '&#x27;')"


def write_links(apps, schema_editor):
    from glossary.bulk import bulk_write

    from glossary.paths import path_for

    # The entry's address around its slug (a slug needs no escaping: letters, digits, -, _).
    before, after = path_for("glossary:entry", "SLUG").split("SLUG")
    names = apps.get_model("glossary", "ListingName")._meta.db_table
    listings = apps.get_model("glossary", "Listing")._meta.db_table
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    with bulk_write([names]):
        schema_editor.execute(
            f"UPDATE {names} SET link = (SELECT '<li><a href=\"' || %s || l.slug || %s || '\">' || "
            f"{_escaped('l.term')} || '</a></li>' FROM {listings} l "
            f"WHERE l.version_id = {names}.listing_id)",
            [before, after],
        )


class Migration(migrations.Migration):

    dependencies = [
        ("glossary", "0027_a_shared_records_editors_are_kept"),
    ]

    operations = [
        migrations.AddField(
            model_name="listingname",
            name="link",
            field=models.TextField(
                blank=True,
                help_text="The version as the object's page lists it, a link in a list item "
                "(glossary.listing_rows): the page reads it as it is, not the listing's term and "
                "slug.",
            ),
        ),
        migrations.RunPython(write_links, migrations.RunPython.noop),
    ]
