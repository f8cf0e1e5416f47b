"""An entry belongs to a show (or, left empty, to the whole network)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0036_help_text_shows_its_tags_as_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="show",
            field=models.ForeignKey(
                blank=True,
                help_text="The show this entry belongs to. Who may work on it follows the show's team; left empty, it belongs to the whole network.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="entries",
                to="glossary.show",
            ),
        ),
    ]
