from django.apps import AppConfig


class ProjectConfig(AppConfig):
    """The project's plumbing as an app, so `check --deploy` finds its checks."""

    name = "config"
    label = "project"
    verbose_name = "Glossary Desk project"

    def ready(self) -> None:
        # Registering checks is an import side effect; Django has no other hook for it.
        from config import checks  # noqa: F401
