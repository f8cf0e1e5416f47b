"""A version keeps the show it was saved under, and its listing the show it went live under:
the public side reads the show from what was published, never from the working copy."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0038_a_single_shows_entries_are_its"),
    ]

    operations = [
        migrations.AddField(
            model_name="entryversion",
            name="show",
            field=models.ForeignKey(
                blank=True,
                help_text="The show the entry belonged to when this version was saved: readers find the entry on that show's site while this version is live (empty: the network's only).",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="glossary.show",
            ),
        ),
        migrations.AddField(
            model_name="listing",
            name="show",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                help_text="Its version's show (EntryVersion.show), written when it goes live.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="glossary.show",
            ),
        ),
        migrations.AddIndex(
            model_name="listing",
            index=models.Index(
                fields=["show", "initial", "sort_key", "term", "version"],
                name="listing_show_a_to_z_idx",
            ),
        ),
    ]
