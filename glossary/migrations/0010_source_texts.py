"""Citations keep the excerpt the desk wrote when they were confirmed (docs/sources.md).

Schema: `Citation.excerpt` and `excerpt_on`. Data: every stored version's
citations get the document's new fields with their defaults (no excerpt, the
source not changed), so a stored version compares equal to the same working
copy built now; otherwise the first publish or reference change after this
migration would freeze identical copies as new versions. The document keeps
schema version 2: the fields have defaults. Reversing removes them again (the
document forbids keys it does not know).
"""

from typing import Any

from django.db import migrations, models

DEFAULTS = {"excerpt": "", "excerpt_on": None, "source_changed": False}


def _rewrite(apps: Any, change: Any) -> None:
    from glossary.bulk import bulk_write

    EntryVersion = apps.get_model("glossary", "EntryVersion")
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    with bulk_write([EntryVersion._meta.db_table]):
        changed = []
        for version in EntryVersion.objects.only("pk", "data").iterator(chunk_size=500):
            citations = version.data.get("citations") if isinstance(version.data, dict) else None
            if not citations or not any([change(c) for c in citations]):
                continue
            changed.append(version)
            if len(changed) >= 500:
                EntryVersion.objects.bulk_update(changed, ["data"])
                changed = []
        EntryVersion.objects.bulk_update(changed, ["data"])


def _fill(citation: dict[str, Any]) -> bool:
    missing = DEFAULTS.keys() - citation.keys()
    citation.update({key: DEFAULTS[key] for key in missing})
    return bool(missing)


def _drop(citation: dict[str, Any]) -> bool:
    return bool([citation.pop(key) for key in DEFAULTS if key in citation])


def fill_citation_fields(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, _fill)


def drop_citation_fields(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, _drop)


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0009_transcripts"),
    ]

    operations = [
        migrations.AddField(
            model_name="citation",
            name="excerpt",
            field=models.TextField(
                blank=True,
                help_text="What the source said in support of the note when it was last "
                "confirmed (at most 3 sentences, 50 words). Readers see it, dated, when the "
                "source dies or changes, after the next publish.",
            ),
        ),
        migrations.AddField(
            model_name="citation",
            name="excerpt_on",
            field=models.DateField(
                blank=True, help_text="The date the excerpt's text was confirmed.", null=True
            ),
        ),
        migrations.RunPython(fill_citation_fields, drop_citation_fields, elidable=True),
    ]
