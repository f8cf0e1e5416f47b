from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Create (or reset) the local admin login for the demo and print it. DEBUG only."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--password", default="glossary-demo")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("Refusing to create a demo login with DEBUG off.")
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=options["username"])
        user.is_staff = user.is_superuser = True
        user.set_password(options["password"])
        user.save()
        self.stdout.write(
            self.style.SUCCESS(
                f"Admin login: {options['username']} / {options['password']} "
                f"at {settings.SITE_URL}/admin/"
            )
        )
