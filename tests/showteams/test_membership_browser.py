"""The show team screen in a real browser: an admin puts a person on a show's team on their
account page, and that person's next page lists that show's entries only."""

import pytest
from django.contrib.auth.models import User

from editorial.models import ShowMembership
from editorial.permissions import sync_roles
from glossary.models import Entry, Show
from tests.browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _sign_in(page, url: str, username: str, password: str) -> None:
    page.goto(f"{url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("input[type=submit]")


def test_an_admin_puts_a_writer_on_one_shows_team_and_the_writer_sees_only_it(browser, live_server):
    sync_roles()
    User.objects.create_superuser("chief", "chief@example.com", "pw-chief-123")
    writer = User.objects.create_user("wren", "wren@example.com", "pw-wren-123", is_staff=True)
    alpha = Show.objects.create(name="Alpha Hour", slug="alpha-hour")
    beta = Show.objects.create(name="Beta Talk", slug="beta-talk")
    Entry.objects.create(term="Alpha term", slug="alpha-term", show=alpha)
    Entry.objects.create(term="Beta term", slug="beta-term", show=beta)

    admin_page = browser.new_page(viewport={"width": 1280, "height": 1000})
    _sign_in(admin_page, live_server.url, "chief", "pw-chief-123")
    admin_page.goto(f"{live_server.url}/admin/auth/user/{writer.pk}/change/")
    assert admin_page.get_by_text("Show teams (none: the role from their group").count() == 1
    admin_page.click("#show_memberships-group .add-row a")
    admin_page.select_option("#id_show_memberships-0-show", label="Alpha Hour")
    admin_page.select_option("#id_show_memberships-0-role", value="writer")
    with admin_page.expect_navigation():
        admin_page.click("input[name=_continue]")
    admin_page.screenshot(path=str(ARTIFACTS / "admin-show-team.png"), full_page=False)
    assert admin_page.locator(".errornote").count() == 0
    membership = ShowMembership.objects.get(user=writer)
    assert (membership.show, membership.role) == (alpha, "writer")

    # The team list shows it too, for every show at once.
    admin_page.goto(f"{live_server.url}/admin/editorial/showmembership/")
    assert admin_page.locator("#result_list").get_by_text("wren").count() == 1

    context = browser.new_context()
    writer_page = context.new_page()
    _sign_in(writer_page, live_server.url, "wren", "pw-wren-123")
    writer_page.goto(f"{live_server.url}/admin/glossary/entry/")
    listed = writer_page.locator("#result_list").inner_text()
    assert "Alpha term" in listed
    assert "Beta term" not in listed
    beta_entry = Entry.objects.get(slug="beta-term")
    response = writer_page.goto(f"{live_server.url}/admin/glossary/entry/{beta_entry.pk}/change/")
    assert response is not None and response.status == 403
    context.close()
