"""A show may have a host of its own for its public site."""

import django.db.models.deletion
import glossary.models
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0039_a_version_and_its_listing_keep_their_show"),
    ]

    operations = [
        migrations.AddField(
            model_name="show",
            name="public_host",
            field=models.CharField(
                blank=True,
                help_text="A host name of its own for the show's public site, as in glossary.example-show.com (no scheme, no path). Requests to it serve only this show's published entries; point the host's DNS at this server and add it to SHOW_PUBLIC_HOSTS first (docs/operations.md). Leave empty to serve the show at /shows/ and its slug only.",
                max_length=253,
                null=True,
                unique=True,
                validators=[glossary.models.validate_public_host],
                verbose_name="public host",
            ),
        ),
    ]
