from django.apps import AppConfig


class EditorialConfig(AppConfig):
    name = "editorial"
    verbose_name = "Editorial desk"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the production checks that `manage.py check --deploy` runs.
        from editorial import checks  # noqa: F401
