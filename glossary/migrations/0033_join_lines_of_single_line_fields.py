"""Rows saved before single-line fields refused line breaks (0032) may hold one.

Each such value becomes one line, its line breaks (and the spaces around them) one
space: a browser's text input would otherwise drop the break and join the words
("Hdr TestBcc: …") the next time an editor saves the row. An entry whose term or
summary changed while it is live is marked as having unpublished changes, so an
editor sees it on the dashboard: readers keep its live version until the next publish.
"""

import re

from django.db import migrations

# As glossary.fields._LINE_BREAK, copied: a migration must not change when the code does.
LINE_BREAKS = re.compile("\\s*[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+\\s*")

FIELDS = {
    "Show": ["name"],
    "Person": ["name"],
    "Organisation": ["name"],
    "Episode": ["title"],
    "Appearance": ["title"],
    "Entry": ["term", "summary"],
    "Source": ["title", "publisher"],
    "SeeAlso": ["link_text", "note"],
}


def one_line(value: str) -> str:
    return LINE_BREAKS.sub(" ", value).strip()


def join_lines(apps, schema_editor):
    for model_name, names in FIELDS.items():
        model = apps.get_model("glossary", model_name)
        holding = None
        for name in names:
            query = model.objects.filter(**{f"{name}__regex": "[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]"})
            holding = query if holding is None else holding | query
        for row in holding.distinct():
            for name in names:
                setattr(row, name, one_line(getattr(row, name)))
            extra = []
            if model_name == "Entry" and row.live_version_id is not None:
                row.has_unpublished_changes = True
                extra = ["has_unpublished_changes"]
            row.save(update_fields=[*names, *extra])


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0032_single_line_fields_refuse_line_breaks"),
    ]

    operations = [
        migrations.RunPython(join_lines, migrations.RunPython.noop),
    ]
