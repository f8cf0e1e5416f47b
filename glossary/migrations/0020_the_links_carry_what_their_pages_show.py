# A person's or organisation's page read the whole record of each of its first 50
# episodes (about 600 bytes of JSON each) to show a line per episode. Each link now
# carries what that page shows of its episode (glossary.records.link_facts); the next
# migration fills it in for the links already kept.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("glossary", "0019_entry_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="publicrecordlink",
            name="facts",
            field=models.JSONField(
                default=dict,
                help_text="What the named person's or organisation's page shows of this "
                "episode, copied from the episode record with the link "
                "(glossary.records.link_facts).",
            ),
        ),
    ]
