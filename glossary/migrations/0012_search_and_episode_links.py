# The feed's index: the newest significant changes among published entries.
#
# Public record links: whom each episode record names, so person and organisation
# pages find their episodes by index (filled here from the records).
#
# Stored search: on PostgreSQL a weighted tsvector per live version with a GIN index and
# a trigram index over the term and aliases (pg_trgm); on SQLite two FTS5 tables, one
# of words (porter stemmer) and one of the term and alias trigrams. Each database gets
# only its own; the indexes are not in the model's Meta, so SQLite never sees a GIN
# index when it rebuilds the table. The vectors and FTS rows are filled when a version
# goes live; `manage.py rerender` (every deploy runs it) fills them for entries
# published before this migration.

import django.contrib.postgres.search
import django.db.models.deletion
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models

VECTOR_INDEX = GinIndex(fields=["search_vector"], name="entryversion_search_vector_idx")
NAMES_INDEX = GinIndex(
    fields=["search_names"], opclasses=["gin_trgm_ops"], name="entryversion_names_trgm_idx"
)
SQLITE_TABLES = {
    "glossary_search": "term, aliases, summary, body, quotes, "
    "tokenize = 'porter unicode61 remove_diacritics 2'",
    "glossary_search_names": "name, version UNINDEXED, tokenize = 'trigram'",
}


def create_indexes(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    model = apps.get_model("glossary", "EntryVersion")
    if vendor == "postgresql":
        schema_editor.add_index(model, VECTOR_INDEX)
        schema_editor.add_index(model, NAMES_INDEX)
    elif vendor == "sqlite":
        for table, columns in SQLITE_TABLES.items():
            schema_editor.execute(f"CREATE VIRTUAL TABLE {table} USING fts5({columns})")


def drop_indexes(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    model = apps.get_model("glossary", "EntryVersion")
    if vendor == "postgresql":
        schema_editor.remove_index(model, NAMES_INDEX)
        schema_editor.remove_index(model, VECTOR_INDEX)
    elif vendor == "sqlite":
        for table in SQLITE_TABLES:
            schema_editor.execute(f"DROP TABLE {table}")


def fill_names(apps, schema_editor):
    from glossary.bulk import bulk_write

    EntryVersion = apps.get_model("glossary", "EntryVersion")
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    with bulk_write([EntryVersion._meta.db_table]):
        batch = []
        for version in EntryVersion.objects.only("pk", "data").iterator(chunk_size=500):
            data = version.data or {}
            version.search_names = "\n".join([data.get("term", ""), *data.get("aliases", [])])
            batch.append(version)
            if len(batch) == 500:
                EntryVersion.objects.bulk_update(batch, ["search_names"])
                batch = []
        EntryVersion.objects.bulk_update(batch, ["search_names"])


def fill_links(apps, schema_editor):
    from glossary.bulk import bulk_write

    PublicRecord = apps.get_model("glossary", "PublicRecord")
    PublicRecordLink = apps.get_model("glossary", "PublicRecordLink")
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    with bulk_write([PublicRecordLink._meta.db_table]):
        links = []
        for pk, data in PublicRecord.objects.filter(kind="episode").values_list("pk", "data"):
            named = {("person", a["person"]) for a in data.get("appearances", [])}
            named |= {
                ("organisation", a["affiliation"])
                for a in data.get("appearances", [])
                if a.get("affiliation")
            }
            named |= {("organisation", s["organisation"]) for s in data.get("sponsors", [])}
            links += [PublicRecordLink(record_id=pk, kind=k, object_id=o) for k, o in named]
        PublicRecordLink.objects.bulk_create(links, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0011_lowercase_slugs_and_truer_help_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="entryversion",
            name="search_names",
            field=models.TextField(
                blank=True,
                help_text="The term and its aliases, one a line: what a misspelt search is "
                "matched against (a trigram index on PostgreSQL).",
            ),
        ),
        migrations.AddField(
            model_name="entryversion",
            name="search_vector",
            field=django.contrib.postgres.search.SearchVectorField(
                blank=True,
                editable=False,
                help_text="The live version's words, weighted: term and aliases, summary, "
                "body, quotes.",
                null=True,
            ),
        ),
        migrations.CreateModel(
            name="PublicRecordLink",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("show", "Show"),
                            ("episode", "Episode"),
                            ("person", "Person"),
                            ("organisation", "Organisation"),
                            ("source", "Source"),
                            ("tag", "Tag"),
                        ],
                        max_length=12,
                    ),
                ),
                ("object_id", models.PositiveBigIntegerField()),
                (
                    "record",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="links",
                        to="glossary.publicrecord",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["kind", "object_id"], name="publicrecordlink_object_idx")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("record", "kind", "object_id"), name="publicrecordlink_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(fill_links, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="entry",
            index=models.Index(
                models.OrderBy(models.F("significant_change_at"), descending=True),
                models.F("term"),
                condition=models.Q(("live_version__isnull", False)),
                name="entry_published_recent_idx",
            ),
        ),
        TrigramExtension(),
        migrations.RunPython(fill_names, migrations.RunPython.noop),
        migrations.RunPython(create_indexes, drop_indexes),
    ]
