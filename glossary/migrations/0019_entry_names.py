# The duplicate-name publish check read every unarchived entry's term and aliases on
# each run (the entry's admin page, the dashboard, every publish): 10,000 rows at
# 10,000 entries. Each entry's names are now rows of their own (glossary.EntryName),
# looked up by index; here they are written for the entries already kept.

from django.db import migrations, models
import django.db.models.deletion


def write_names(apps, schema_editor):
    from glossary.bulk import bulk_write
    from glossary.models import name_keys

    Entry = apps.get_model("glossary", "Entry")
    EntryName = apps.get_model("glossary", "EntryName")
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    with bulk_write([EntryName._meta.db_table]):
        rows = (
            EntryName(entry_id=pk, name=name)
            for pk, term, aliases in Entry.objects.values_list("pk", "term", "aliases").iterator()
            for name in sorted(name_keys(term, aliases))
        )
        EntryName.objects.bulk_create(rows, batch_size=2000)


class Migration(migrations.Migration):

    dependencies = [
        ("glossary", "0018_the_links_carry_their_episodes_place"),
    ]

    operations = [
        migrations.CreateModel(
            name="EntryName",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.TextField(db_index=True)),
                (
                    "entry",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="name_rows",
                        to="glossary.entry",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("entry", "name"), name="entryname_unique")
                ],
            },
        ),
        migrations.RunPython(write_names, migrations.RunPython.noop),
    ]
