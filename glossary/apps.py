from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    name = "glossary"
    verbose_name = "Glossary"
    default_auto_field = "django.db.models.BigAutoField"
