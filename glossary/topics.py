"""Topics (django-taggit's tags) always have an address readers can open.

taggit slugs a tag's name with Unicode kept ("mémoire", "内存"), so the public
routes read slugs with the `topic` converter, which takes any word characters.
A name with no letter or digit at all ("+++") would slug to nothing and a page
with no address would fail to publish; such a topic is called "topic" instead
(taggit appends "_1", "_2" … when that is taken).
"""

from __future__ import annotations

from typing import Any

from taggit.models import Tag

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
