import io
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError

from editorial.assignments import add_demo_plan
from editorial.comments import add_demo_thread
from editorial.models import ShowMembership
from editorial.permissions import Role
from editorial.refused import add_demo_refused_edit
from glossary.management.database import DatabaseCommand
from glossary.models import Show

# One login per role, so the whole review path can be tried on the demo:
# a writer submits, a fact-checker confirms sources, an editor publishes. Two
# editors, because nobody approves their own change: an editor's own edit needs
# the other one to publish it.
DEMO_ROLE_LOGINS = [
    ("writer", Role.WRITER),
    ("factchecker", Role.FACT_CHECKER),
    ("editor", Role.EDITOR),
    ("editor2", Role.EDITOR),
]


# The show demo.content.load_demo makes; its team has one demo member.
DEMO_SHOW_SLUG = "demo-show"

# A reserved name (RFC 2606), so no demo email could ever reach a real mailbox.
DEMO_MAIL_DOMAIN = "glossary-demo.example"


def demo_address(username: str) -> str:
    return f"{username}@{DEMO_MAIL_DOMAIN}"


class Command(DatabaseCommand):
    help = (
        "Create (or reset) the local demo logins: an admin and one user per role, each "
        "with an email address at glossary-demo.example, and print them. Refuses to run "
        "with DEBUG off."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--password", default="glossary-demo")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("Refusing to create demo logins with DEBUG off.")
        call_command("setup_roles", stdout=io.StringIO())
        User = get_user_model()
        password = options["password"]
        admin, _ = User.objects.get_or_create(username=options["username"])
        admin.is_staff = admin.is_superuser = True
        admin.set_password(password)
        admin.email = admin.email or demo_address(admin.username)
        admin.save()
        lines = [f"  {options['username']:<12} {admin.email} (superuser)"]
        for username, role in DEMO_ROLE_LOGINS:
            user, _ = User.objects.get_or_create(username=username)
            user.is_staff = True
            user.set_password(password)
            # An address, so the demo's notifications reach someone (make run writes them
            # to .desk/outbox/); one a person set is kept.
            user.email = user.email or demo_address(username)
            user.save()
            user.groups.set([Group.objects.get(name=role.value)])
            lines.append(f"  {username:<12} {user.email} ({role.value})")
        # One team membership, so the account page shows show teams at work: `writer` is
        # on the demo show's team as a writer. With one show this changes nothing it may
        # do (docs/shows-and-teams.md); a second show's entries would be out of its reach.
        show = Show.objects.filter(slug=DEMO_SHOW_SLUG).first()
        if show is not None:
            ShowMembership.objects.update_or_create(
                user=User.objects.get(username="writer"),
                show=show,
                defaults={"role": ShowMembership.Role.WRITER},
            )
            lines.append(f"  (writer is on the team of “{show.name}”, as a writer)")
        # The demo's comment threads are written by these logins (load_demo adds them
        # too when it runs after this).
        add_demo_thread()
        # And the demo's planned entry and assignments (docs/demo.md).
        add_demo_plan()
        # And the writer's kept refused edit (docs/who-is-editing.md).
        add_demo_refused_edit()
        self.stdout.write(
            self.style.SUCCESS(f"Demo logins at {settings.SITE_URL}/admin/, password {password!r}:")
        )
        self.stdout.write("\n".join(lines))
