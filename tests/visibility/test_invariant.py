"""The rule above all others, as a stateful property test.

Writers and fact-checkers act on the desk in random orders (edit entries, rename
see-also targets, correct people and episodes, add appearances, confirm sources,
use one-click fixes, try to merge tags, share previews). Whatever they do, no
byte any reader can fetch changes (every public page, the feed, the sitemap and
the API, hashed) until an editor who made none of the changes publishes. And
once an entry is unpublished, archived or deleted, nothing of it is served again,
through a Redis killed and restarted from its append-only file included.

hypothesis's rule-based state machine picks the actions; each example starts
from the demo in a transaction that is rolled back afterwards. The number of
examples is bounded (10 of up to 10 steps, about 30 s); under CI hypothesis derandomizes,
and that fixed run was checked to fail when the cache generation is not bumped or a
reference edit reaches a live page directly.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client, override_settings
from django.urls import reverse
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from taggit.models import Tag

from demo.content import load_demo
from editorial import workflow
from editorial.permissions import Role, sync_roles
from glossary import cache as public_cache
from glossary import publishing
from glossary.models import Appearance, Entry, Episode, Organisation, Person, PublicRecord, Source
from tests.personas import client_for, member
from tests.redis_server import RedisServer
from tests.visibility.desk import edit_entry, edit_object, public_fingerprint

pytestmark = pytest.mark.django_db

ENTRIES = ["interconnect", "inference", "training", "gpu", "ai-factory", "high-bandwidth-memory"]
PEOPLE = ["jeetu-patel", "anush-elangovan", "conor"]
EPISODES = [44, 28]
ORGANISATIONS = ["cisco", "amd", "galileo"]
WORDS = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=12).map(str.strip).filter(bool)


def public_urls() -> list[str]:
    """Every address readers can fetch of the demo, with its detail pages and API answers."""
    urls = ["/", "/episodes/", "/people/", "/organisations/", "/tags/", "/feed/", "/sitemap.xml"]
    urls += ["/sitemap-entries.xml", "/sitemap-people.xml"]
    urls += ["/search/?q=network", "/search/?q=patel", "/api/v1/entries/", "/api/v1/people/"]
    urls += ["/api/v1/episodes/", "/api/v1/organisations/", "/api/v1/tags/"]
    for slug in ENTRIES:
        urls += [f"/glossary/{slug}/", f"/api/v1/entries/{slug}/"]
    urls += [f"/people/{slug}/" for slug in PEOPLE]
    urls += [f"/organisations/{slug}/" for slug in ORGANISATIONS]
    urls += ["/episodes/demo-show/3/44/", "/episodes/demo-show/2/28/", "/tags/networking/"]
    return urls


class Desk(RuleBasedStateMachine):
    redis: RedisServer

    def __init__(self) -> None:
        super().__init__()
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        cache.clear()
        public_cache.invalidate()
        sync_roles()
        load_demo()
        self.writer = member("sam_writer", Role.WRITER)
        self.fact_checker = member("fay_checker", Role.FACT_CHECKER)
        self.editor = member("eli_editor", Role.EDITOR)
        self.admin = member("ada_root", Role.ADMIN)
        self.reader = Client()
        self.urls = public_urls()
        self.withdrawn: set[str] = set()
        self.expected = self.fingerprint()

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)
        cache.clear()
        public_cache.invalidate()

    def fingerprint(self) -> dict[str, str]:
        return public_fingerprint(self.reader, self.urls)

    def entry(self, slug: str) -> Entry | None:
        return Entry.objects.filter(slug=slug).first()

    # --- what writers and fact-checkers do: never a public change -----------------------

    @initialize()
    def start(self) -> None:
        assert self.expected["/glossary/interconnect/"].startswith("200:")

    @rule(slug=st.sampled_from(ENTRIES), words=WORDS)
    def writer_edits_an_entry(self, slug: str, words: str) -> None:
        entry = self.entry(slug)
        if entry is not None and entry.status != Entry.Status.ARCHIVED:
            edit_entry(self.writer, entry, body=f"{entry.body}\n\nAlso: {words}.")

    @rule(slug=st.sampled_from(ENTRIES), words=WORDS)
    def writer_renames_a_see_also_target(self, slug: str, words: str) -> None:
        entry = self.entry(slug)
        if entry is not None and entry.status != Entry.Status.ARCHIVED:
            edit_entry(self.writer, entry, term=f"{entry.term} {words}")

    @rule(slug=st.sampled_from(PEOPLE), words=WORDS)
    def writer_renames_a_person(self, slug: str, words: str) -> None:
        person = Person.objects.get(slug=slug)
        edit_object(self.writer, "glossary_person", person.pk, name=f"{person.name} {words}")

    @rule(number=st.sampled_from(EPISODES), words=WORDS)
    def writer_retitles_an_episode(self, number: int, words: str) -> None:
        episode = Episode.objects.get(number=number)
        edit_object(self.writer, "glossary_episode", episode.pk, title=f"{words} {episode.title}")

    @rule(slug=st.sampled_from(ORGANISATIONS), words=WORDS)
    def writer_renames_an_organisation(self, slug: str, words: str) -> None:
        org = Organisation.objects.get(slug=slug)
        edit_object(self.writer, "glossary_organisation", org.pk, name=f"{org.name} {words}")

    @rule(number=st.sampled_from(EPISODES), words=WORDS)
    def writer_adds_a_guest_to_an_episode(self, number: int, words: str) -> None:
        episode = Episode.objects.get(number=number)
        slug = "guest-" + "-".join(words.split())
        person, _ = Person.objects.get_or_create(slug=slug, defaults={"name": f"Guest {words}"})
        Appearance.objects.get_or_create(episode=episode, person=person)
        # What the episode admin does after saving its inline appearances.
        publishing.record_reference_change(
            PublicRecord.Kind.EPISODE, [episode.pk], user=self.writer, what="Guest added."
        )

    @rule(slug=st.sampled_from(ENTRIES), words=WORDS)
    def writer_retags_an_entry(self, slug: str, words: str) -> None:
        entry = self.entry(slug)
        if entry is not None and entry.status != Entry.Status.ARCHIVED:
            edit_entry(self.writer, entry, tags=f"{words}, networking")

    @rule(slug=st.sampled_from(ENTRIES), words=WORDS)
    def writer_retitles_a_cited_source(self, slug: str, words: str) -> None:
        source = Source.objects.filter(citations__entry__slug=slug).first()
        if source is not None:
            edit_object(self.writer, "glossary_source", source.pk, title=f"{source.title} {words}")

    @rule(slug=st.sampled_from(ENTRIES))
    def fact_checker_confirms_the_sources(self, slug: str) -> None:
        sources = Source.objects.filter(citations__entry__slug=slug)
        if sources:
            client_for(self.fact_checker).post(
                reverse("admin:glossary_source_changelist"),
                {"action": "mark_confirmed_today", "_selected_action": [s.pk for s in sources]},
            )

    @rule(words=WORDS)
    def fact_checker_tries_to_merge_tags(self, words: str) -> None:
        tags = list(Tag.objects.order_by("pk")[:2])
        client_for(self.fact_checker).post(
            "/admin/taggit/tag/",
            {
                "action": "merge_tags",
                "_selected_action": [str(t.pk) for t in tags],
                "merge": "1",
                "name": words,
            },
        )

    @rule(slug=st.sampled_from(ENTRIES), number=st.sampled_from(EPISODES))
    def writer_uses_fix_this(self, slug: str, number: int) -> None:
        entry = self.entry(slug)
        if entry is not None:
            episode = Episode.objects.get(number=number)
            client_for(self.writer).post(
                reverse("desk:gates-generate-sponsorship", args=[entry.pk, episode.pk])
            )

    @rule(slug=st.sampled_from(ENTRIES))
    def writer_shares_a_preview(self, slug: str) -> None:
        entry = self.entry(slug)
        if entry is not None:
            client_for(self.writer).post(reverse("admin:glossary_entry_share", args=[entry.pk]))

    @rule()
    def redis_dies_and_comes_back_from_its_append_only_file(self) -> None:
        self.redis.kill()
        self.redis.start()
        public_cache.invalidate()  # as any other process would start afresh

    @invariant()
    def readers_see_only_what_an_editor_published(self) -> None:
        assert self.fingerprint() == self.expected

    # --- what an editor does: the only way anything public changes ------------------------

    @rule(slug=st.sampled_from(ENTRIES))
    def an_editor_who_changed_nothing_publishes(self, slug: str) -> None:
        entry = self.entry(slug)
        if entry is None or entry.status == Entry.Status.ARCHIVED:
            return
        if entry.status in (Entry.Status.DRAFT, Entry.Status.CHANGES_REQUESTED):
            workflow.submit_for_review(entry, user=self.writer)
        if entry.status == Entry.Status.IN_REVIEW:
            workflow.publish_entry(entry, user=self.editor, override_reason="Demo entry.")
        self.withdrawn.discard(slug)
        self.expected = self.fingerprint()

    @rule(slug=st.sampled_from(ENTRIES), how=st.sampled_from(["unpublish", "archive", "delete"]))
    def an_entry_is_withdrawn(self, slug: str, how: str) -> None:
        entry = self.entry(slug)
        if entry is None:
            return
        term = entry.live_version.term if entry.live_version else None
        if how == "unpublish" and entry.is_live:
            workflow.unpublish_entry(entry, user=self.editor, comment="Withdrawn.")
        elif how == "archive" and entry.status != Entry.Status.ARCHIVED:
            workflow.archive_entry(entry, user=self.editor)
        elif how == "delete":
            workflow.delete_entry(entry, user=self.admin)
        else:
            return
        self.withdrawn.add(slug)
        self.expected = self.fingerprint()
        self.assert_withdrawn(slug, term)

    def assert_withdrawn(self, slug: str, term: str | None) -> None:
        for url in [f"/glossary/{slug}/", f"/api/v1/entries/{slug}/"]:
            assert self.reader.get(url).status_code in (404, 301), url
        for url in ["/", "/feed/", "/sitemap.xml", "/api/v1/entries/"]:
            body = self.reader.get(url).content.decode()
            assert f"/glossary/{slug}/" not in body, url

    @invariant()
    def nothing_withdrawn_comes_back(self) -> None:
        for slug in self.withdrawn:
            self.assert_withdrawn(slug, None)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, fsync="no")
    server.start()
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.process.kill()
            server.process.wait(timeout=10)


def test_no_public_byte_changes_until_someone_else_publishes_and_nothing_withdrawn_returns(
    own_redis: RedisServer,
) -> None:
    caches: dict[str, Any] = {
        "default": {
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": own_redis.url,
            "KEY_PREFIX": "invariant",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    Desk.redis = own_redis
    bounded = settings(
        max_examples=10,
        stateful_step_count=10,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    with override_settings(
        CACHES=caches,
        PUBLIC_CACHE_SYNC_SECONDS=0,
        PUBLIC_SEARCH_RATE_LIMIT="",
        PUBLIC_API_RATE_LIMIT="",
    ):
        run_state_machine_as_test(Desk, settings=bounded)
