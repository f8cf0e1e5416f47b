"""A glossary of one show: every entry without a show belongs to it (0037 added the field).

With exactly one Show the desk behaves as before shows had teams: its entries are that
show's, so a team on it covers them all. With none or several, nothing is guessed:
entries stay the whole network's until an editor names their show. A plain UPDATE:
the show is not part of any published version, so readers see nothing change.
"""

from django.db import migrations


def give_entries_the_only_show(apps, schema_editor):
    Show = apps.get_model("glossary", "Show")
    Entry = apps.get_model("glossary", "Entry")
    shows = list(Show.objects.values_list("pk", flat=True)[:2])
    if len(shows) == 1:
        Entry.objects.filter(show__isnull=True).update(show_id=shows[0])


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0037_an_entry_belongs_to_a_show"),
    ]

    operations = [
        migrations.RunPython(give_entries_the_only_show, migrations.RunPython.noop),
    ]
