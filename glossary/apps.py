from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    name = "glossary"
    verbose_name = "Glossary"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The public page cache is dropped on every publish/unpublish (glossary.cache).
        # Imported here because it imports the models, which Django loads after apps.
        from glossary.cache import connect_signals

        connect_signals()
