# The links kept before 0020 get what their pages show of their episodes, from the
# episode records they link; publishing keeps it from now on (glossary.records).

from django.db import migrations


def fill_facts(apps, schema_editor):
    from glossary.bulk import bulk_write

    from glossary.records import link_facts

    PublicRecordLink = apps.get_model("glossary", "PublicRecordLink")
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    with bulk_write([PublicRecordLink._meta.db_table]):
        links = PublicRecordLink.objects.select_related("record").order_by("pk")
        batch = []
        for link in links.iterator(chunk_size=2000):
            link.facts = link_facts(link.kind, link.object_id, link.record)
            batch.append(link)
            if len(batch) == 2000:
                PublicRecordLink.objects.bulk_update(batch, ["facts"])
                batch = []
        PublicRecordLink.objects.bulk_update(batch, ["facts"])


class Migration(migrations.Migration):

    dependencies = [
        ("glossary", "0020_the_links_carry_what_their_pages_show"),
    ]

    operations = [
        migrations.RunPython(fill_facts, migrations.RunPython.noop),
    ]
