# A show's public record was found "named" by a live version through the desk's episodes
# (`episodes__show`): a writer moving an episode to another show, with nothing published,
# changed which live versions seemed to name a show, so withdrawals and `rerender` failed
# reading a show from a document that does not name it, and a show's record could be
# deleted from readers. Each version now names its shows as its document
# does, like its episodes and people; here they are written for the versions already kept.

from django.db import migrations, models


def index_shows(apps, schema_editor):
    from glossary.bulk import bulk_write

    EntryVersion = apps.get_model("glossary", "EntryVersion")
    Show = apps.get_model("glossary", "Show")
    through = EntryVersion.shows.through
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    with bulk_write([through._meta.db_table]):
        shows = set(Show.objects.values_list("pk", flat=True))
        rows = []
        for pk, data in EntryVersion.objects.values_list("pk", "data").iterator(chunk_size=2000):
            named = {s.get("id") for s in (data or {}).get("shows", []) if isinstance(s, dict)}
            rows += [through(entryversion_id=pk, show_id=show) for show in sorted(named & shows)]
            if len(rows) >= 5000:
                through.objects.bulk_create(rows, ignore_conflicts=True)
                rows = []
        through.objects.bulk_create(rows, ignore_conflicts=True)


class Migration(migrations.Migration):

    dependencies = [
        ("glossary", "0028_an_objects_page_reads_its_entries_links"),
    ]

    operations = [
        migrations.AddField(
            model_name="entryversion",
            name="shows",
            field=models.ManyToManyField(
                blank=True, related_name="entry_versions", to="glossary.show"
            ),
        ),
        migrations.RunPython(index_shows, migrations.RunPython.noop),
    ]
