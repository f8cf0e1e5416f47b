from django.apps import AppConfig


class EditorialConfig(AppConfig):
    name = "editorial"
    verbose_name = "Editorial desk"
    default_auto_field = "django.db.models.BigAutoField"
