# A person's or organisation's first episodes in list order read each linked episode's place
# from this index instead of its whole record (glossary.listing_reads.public_record_and_episodes).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('glossary', '0016_listing_search_indexes'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='publicrecord',
            index=models.Index(fields=['id', 'kind', 'sort_key'], name='publicrecord_place_idx'),
        ),
    ]
