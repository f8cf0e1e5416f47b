"""Create the writer, fact-checker, editor and admin groups with their permissions.

Data only; `manage.py setup_roles` does the same and can be re-run at any time.
"""

from django.db import migrations


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations ran; create them now
    # so the groups can hold them on a fresh database.
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None

    from editorial.permissions import sync_roles

    sync_roles(apps)


def remove_roles(apps, schema_editor):
    from editorial.permissions import Role

    apps.get_model("auth", "Group").objects.filter(name__in=[r.value for r in Role]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0001_workflow_audit_log"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("taggit", "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
