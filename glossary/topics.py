"""Topics (django-taggit's tags) always have an address readers can open.

taggit slugs a tag's name with Unicode kept ("mémoire", "内存"), so the public
routes read slugs with the `topic` converter, which takes any word characters.
A name with no letter or digit at all ("+++") would slug to nothing and a page
with no address would fail to publish; such a topic is called "topic" instead
(taggit appends "_1", "_2" … when that is taken).

A published topic keeps its address while a live entry shows it, even once its
row is deleted on the desk (glossary.records): a new topic is never given that
address (taggit would, the row being gone), and an editor cannot give it to
another (`published_address_holder`, the tag admin's form).
"""

from __future__ import annotations

from typing import Any

from taggit.models import Tag

from glossary.models import PublicRecord

FALLBACK_SLUG = "topic"


class TopicSlugConverter:
    """A slug in any script: letters, digits, underscores and hyphens."""

    regex = r"[-\w]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def give_every_topic_an_address(sender: type[Tag], instance: Tag, **_: Any) -> None:
    if not instance.slug.strip("-_0123456789"):
        # "" from the first such name; "_1", "_2" from taggit's retries after it.
        instance.slug = FALLBACK_SLUG + instance.slug


def published_address_holder(slug: str, tag_id: int | None) -> PublicRecord | None:
    """The published topic, other than `tag_id`, whose page is at `slug`, if any."""
    held = PublicRecord.objects.filter(kind=PublicRecord.Kind.TAG, slug=slug)
    if tag_id is not None:
        held = held.exclude(object_id=tag_id)
    return held.first()


def keep_published_addresses(sender: type[Tag], instance: Tag, **_: Any) -> None:
    """A new topic named like a deleted one still shown on live pages gets the next free
    address, as taggit numbers a name taken on the desk ("standards_1")."""
    if not instance._state.adding or published_address_holder(instance.slug, None) is None:
        return
    base, number = instance.slug, 1
    while True:
        slug = f"{base}_{number}"
        taken = Tag.objects.filter(slug=slug).exists()
        if not taken and published_address_holder(slug, None) is None:
            instance.slug = slug
            return
        number += 1
