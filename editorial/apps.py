from typing import Any

from django.apps import AppConfig


class EditorialConfig(AppConfig):
    name = "editorial"
    verbose_name = "Editorial desk"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Wired here so that neither the link checker nor the workflow imports what is
        # above it in the layers (pyproject.toml): they send signals, these listen.
        from editorial import assignments, comments, notify, refused, tasks
        from editorial.linkcheck.service import sources_changed
        from glossary.signals import demo_loaded

        def source_alerts(sender: Any, changes: Any, **kwargs: Any) -> None:
            notify.tell_source_changes(changes)

        def deliver_now(sender: Any, **kwargs: Any) -> None:
            # Link alerts keep waiting for the periodic run, which gathers a whole run's.
            tasks.deliver_notifications.delay(include_coalesced=False)

        def demo_threads(sender: Any, **kwargs: Any) -> None:
            comments.add_demo_thread()
            assignments.add_demo_plan()
            refused.add_demo_refused_edit()

        sources_changed.connect(source_alerts, dispatch_uid="editorial.notify.source_alerts")
        demo_loaded.connect(demo_threads, dispatch_uid="editorial.comments.demo_threads")
        notify.notifications_recorded.connect(
            deliver_now, dispatch_uid="editorial.notify.deliver_now"
        )
