from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    name = "glossary"
    verbose_name = "Glossary"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The public page cache is dropped on every publish/unpublish (glossary.cache).
        # Imported here because it imports the models, which Django loads after apps.
        from django.db.models.signals import pre_save
        from taggit.models import Tag

        from glossary.cache import connect_signals
        from glossary.show_site import connect_signals as connect_show_sites
        from glossary.signals import live_content_changed
        from glossary.stored_pages import store_touched_pages
        from glossary.topics import give_every_topic_an_address, keep_published_addresses

        connect_signals()
        connect_show_sites()
        # The first pages a change touched, stored once it is committed (glossary.reference_views).
        live_content_changed.connect(store_touched_pages, dispatch_uid="glossary.stored-pages")
        pre_save.connect(give_every_topic_an_address, sender=Tag, dispatch_uid="topic-address")
        pre_save.connect(
            keep_published_addresses, sender=Tag, dispatch_uid="topic-published-address"
        )
