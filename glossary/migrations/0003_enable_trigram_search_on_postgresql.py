# pg_trgm backs the public search's misspelling fallback (glossary.search). Django's
# CreateExtension does nothing on other databases, so SQLite still migrates.

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0002_source_last_counted_failure_at"),
    ]

    operations = [
        TrigramExtension(),
    ]
