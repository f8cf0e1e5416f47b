from typing import Any

from demo.content import load_demo
from glossary.management.database import DatabaseCommand


class Command(DatabaseCommand):
    help = "Load the demo glossary (the seed entry “Interconnect” and its neighbours). Idempotent."

    def handle(self, *args: Any, **options: Any) -> None:
        result = load_demo()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo ready: {result['entries']} entries, {result['published']} (re)published."
            )
        )
