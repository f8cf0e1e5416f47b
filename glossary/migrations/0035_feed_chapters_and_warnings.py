# Episode.chapters: a feed's inline Podlove chapters; Show.feed_warnings: what its last import left out.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('glossary', '0034_a_transcript_keeps_its_import_warnings'),
    ]

    operations = [
        migrations.AddField(
            model_name='episode',
            name='chapters',
            field=models.JSONField(blank=True, default=list, editable=False, help_text="The chapters the show's feed gives inside the episode (Podlove Simple Chapters), as JSON Chapters: startTime in seconds, title, url, img. Each import replaces them; a feed that stops giving them leaves them."),
        ),
        migrations.AddField(
            model_name='show',
            name='feed_warnings',
            field=models.TextField(blank=True, editable=False, help_text='What the last import of the feed left out (a bad season, episode number, duration or chapter), one line each, naming the item and its line in the feed; empty when it left out nothing.'),
        ),
    ]
