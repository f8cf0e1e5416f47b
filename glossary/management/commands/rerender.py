from typing import Any

from django.core.management.base import BaseCommand

from glossary.publishing import rerender_all


class Command(BaseCommand):
    help = (
        "Render every live entry page again from its published document. Run it after "
        "changing the entry page templates or glossary/entry_page.py (every deploy runs it); it also "
        "drops the public page cache. Published content does not change."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        count = rerender_all()
        self.stdout.write(
            self.style.SUCCESS(f"Re-rendered {count} live entr{'y' if count == 1 else 'ies'}.")
        )
