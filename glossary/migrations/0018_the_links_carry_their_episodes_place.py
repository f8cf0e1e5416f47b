# Each link carries its episode record's sort key, so a person's or organisation's first
# episodes in list order are a range of one index (glossary.listing_reads.public_record_and_episodes)
# and the records' place index of 0017 is no longer read. The links already kept get their
# episode's key here; publishing keeps it from now on (glossary.records.refresh_links).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('glossary', '0017_a_persons_episodes_read_an_index'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='publicrecord',
            name='publicrecord_place_idx',
        ),
        migrations.RemoveIndex(
            model_name='publicrecordlink',
            name='publicrecordlink_object_idx',
        ),
        migrations.AddField(
            model_name='publicrecordlink',
            name='sort_key',
            field=models.CharField(default='', help_text="The episode record's sort key, copied with it.", max_length=400),
        ),
        migrations.AddIndex(
            model_name='publicrecordlink',
            index=models.Index(fields=['kind', 'object_id', 'sort_key', 'record'], name='publicrecordlink_order_idx'),
        ),
        migrations.RunSQL(
            "UPDATE glossary_publicrecordlink SET sort_key = (SELECT r.sort_key "
            "FROM glossary_publicrecord r WHERE r.id = glossary_publicrecordlink.record_id)",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
