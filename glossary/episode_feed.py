"""A show's feed applied to its episodes: created, refreshed, and never an editor overruled.

`apply_feed(show, feed, user=...)` takes a parsed feed (glossary.transcripts.podcast_feed) and
brings the show's episodes in line with it, in one transaction:

- An item is found again by its `<guid>` (unique per show); an episode typed by hand
  before the first import is found by season and number and takes the guid. Any other
  item becomes a new episode; an item without an episode number is skipped and said so,
  since an episode's public address needs one.
- For each field the feed fills (`FIELDS`), the episode keeps what the feed last said
  (`Episode.feed_values`). A value that differs from it was corrected by an editor: a
  later feed never overwrites it. When the feed then says something else again, the
  difference waits in the episode admin, where the editor takes the feed's value
  (`take`) or keeps theirs (`keep`, remembered in `Episode.feed_kept` until the feed
  changes again). An empty field is filled; a value the feed stops giving is left.
- `podcast:person` elements become people (found by name, created if new) and
  appearances (host or guest); existing appearances and people's details are kept. A
  person the channel names (the show's host, named once for the whole feed) appears on
  every episode that names nobody of that role itself.
- Inline Podlove Simple Chapters become the episode's `chapters` (JSON Chapters'
  shape); the feed owns them, so each import replaces them, and a feed that stops
  giving them leaves them.
- A value the episode can do without (a bad or out-of-range season, number or
  duration; a chapter without a start) is left out with a warning naming the item and
  its line (`FeedImport.warnings`); it never refuses the feed.

Readers never see the tables: a change the feed makes to an episode or person that
entries show goes through `publishing.record_reference_change`, exactly as an editor's
correction in the admin does, credited to the user who ran the import. It reaches
readers when someone else publishes one of those entries (docs/feeds.md).

The caller fetches the bytes (the desk's import service, editorial.podcast_feed_import, or the demo
loader from a file); this module never touches the network.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from glossary import publishing
from glossary.document import Actor
from glossary.fields import WebURLValidator
from glossary.inbound import strip_invisible
from glossary.models import Appearance, Episode, Person, PublicRecord, Show
from glossary.timestamps import format_timestamp
from glossary.transcripts.podcast_feed import Feed, FeedError, FeedItem
from glossary.transcripts.podcast_feed import Person as FeedPerson

# The episode fields a feed fills, in the order the admin lists them.
FIELDS = (
    "title",
    "season",
    "number",
    "air_date",
    "duration",
    "url",
    "audio_url",
    "transcript_url",
    "transcript_type",
    "chapters_url",
)
LABELS = {
    "title": "title",
    "season": "season",
    "number": "episode number",
    "air_date": "air date",
    "duration": "duration",
    "url": "episode URL",
    "audio_url": "audio URL",
    "transcript_url": "transcript URL",
    "transcript_type": "transcript type",
    "chapters_url": "chapters URL",
}
_URL_FIELDS = ("url", "audio_url", "transcript_url", "chapters_url")
# Which of several podcast:transcript links an episode keeps: the first of these types,
# else the first listed. Timed formats first, since quotes are checked by the second.
TRANSCRIPT_PREFERENCE = (
    "text/vtt",
    "application/json",
    "application/x-subrip",
    "application/srt",
    "text/srt",
)

Value = str | int | None


@dataclass(frozen=True)
class Difference:
    """A field where the feed says something other than the editor's value."""

    field: str
    label: str
    feed: Value
    current: Value

    @property
    def feed_display(self) -> str:
        return display(self.field, self.feed)

    @property
    def current_display(self) -> str:
        return display(self.field, self.current)


@dataclass
class FeedImport:
    """What one import did, for the command's summary and the admin's message."""

    show: Show
    created: list[Episode] = field(default_factory=list)
    updated: list[Episode] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[str] = field(default_factory=list)
    differences: dict[int, list[Difference]] = field(default_factory=dict)
    people_created: list[Person] = field(default_factory=list)
    entries_versioned: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def differences_waiting(self) -> int:
        return sum(len(found) for found in self.differences.values())

    def summary(self) -> str:
        parts = [
            f"{len(self.created)} created",
            f"{len(self.updated)} updated",
            f"{self.unchanged} unchanged",
            f"{self.differences_waiting} difference{'s' if self.differences_waiting != 1 else ''}"
            " waiting for an editor",
        ]
        text = f"{self.show.name}: " + ", ".join(parts) + "."
        if self.people_created:
            text += f" New people: {', '.join(p.name for p in self.people_created)}."
        if self.entries_versioned:
            text += (
                f" {self.entries_versioned} "
                + (
                    "entry showing the changes now has"
                    if self.entries_versioned == 1
                    else "entries showing the changes now have"
                )
                + " a new version; readers see the changes once another editor publishes one "
                "of them."
            )
        if self.skipped:
            text += " Skipped: " + "; ".join(self.skipped) + "."
        if self.warnings:
            text += (
                f" {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}: "
                "values left out of the feed's items."
            )
        return text


def display(name: str, value: Value) -> str:
    """A field's value as the admin shows it."""
    if value is None or value == "":
        return "(empty)"
    if name == "duration" and isinstance(value, int):
        return format_timestamp(value)
    return str(value)


def current_value(episode: Episode, name: str) -> Value:
    """A field's value in the form `Episode.feed_values` stores (dates as ISO text)."""
    value = getattr(episode, name)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if value is None or isinstance(value, int | str):
        return value
    raise TypeError(f"{name} holds {type(value).__name__}")


def _set(episode: Episode, name: str, value: Value) -> None:
    if name == "air_date":
        setattr(episode, name, datetime.date.fromisoformat(str(value)) if value else None)
    elif name in ("duration",):
        setattr(episode, name, value if value not in ("", None) else None)
    elif name in ("season", "number"):
        setattr(episode, name, int(value) if value is not None else getattr(episode, name))
    else:
        setattr(episode, name, value or "")


def _empty(value: Value) -> bool:
    return value is None or value == ""


def differences(episode: Episode) -> list[Difference]:
    """Fields where the feed's last word differs from the episode's and nobody kept theirs."""
    found = []
    for name in FIELDS:
        if name not in episode.feed_values:
            continue
        said = episode.feed_values[name]
        current = current_value(episode, name)
        if _empty(said) or said == current or episode.feed_kept.get(name) == said:
            continue
        found.append(Difference(name, LABELS[name], said, current))
    return found


def item_values(
    item: FeedItem, line: int | None = None, warnings: list[str] | None = None
) -> dict[str, Value]:
    """What the feed says for each field of an item's episode; raises FeedError naming it.
    A number too big for its column is left out (None) and said in `warnings`."""
    line = line or item.line
    transcript = next(
        (t for kind in TRANSCRIPT_PREFERENCE for t in item.transcripts if t.type == kind),
        item.transcripts[0] if item.transcripts else None,
    )
    values: dict[str, Value] = {
        "title": " ".join(strip_invisible(item.title).split()),
        "season": item.season,
        "number": item.episode,
        "air_date": item.published.date().isoformat() if item.published else None,
        "duration": item.duration,
        "url": item.link or "",
        "audio_url": item.enclosure.url if item.enclosure else "",
        "transcript_url": transcript.url if transcript else "",
        "transcript_type": transcript.type if transcript else "",
        "chapters_url": item.chapters.url if item.chapters else "",
    }
    limit = Episode._meta.get_field("title").max_length or 300
    title = str(values["title"])
    if len(title) > limit:
        raise FeedError(
            f"<title> of item {item.guid!r} is {len(title)} characters; an episode title "
            f"holds at most {limit}",
            line,
        )
    # What the columns hold (PostgreSQL's integer and smallint): a bigger number is a bad
    # feed, named here, not a database error.
    for name, element, most in (
        ("season", "<itunes:season>", 32767),
        ("number", "<itunes:episode>", 2**31 - 1),
        ("duration", "<itunes:duration>", 2**31 - 1),
    ):
        value = values[name]
        if isinstance(value, int) and value > most:
            shown = str(value) if len(str(value)) <= 20 else f"a number of {len(str(value))} digits"
            if warnings is not None:
                warnings.append(
                    f"line {line}: {element} of item {item.guid!r} is {shown}; at most {most} "
                    "is stored, so it is ignored"
                )
            values[name] = None
    if len(str(values["transcript_type"])) > 100:
        raise FeedError(f"<podcast:transcript> type of item {item.guid!r} is too long", line)
    elements = {
        "url": "<link>",
        "audio_url": "<enclosure> url",
        "transcript_url": "<podcast:transcript> url",
        "chapters_url": "<podcast:chapters> url",
    }
    for name in _URL_FIELDS:
        _check_url(str(values[name]), f"{elements[name]} of item {item.guid!r}", line)
    if len(item.guid) > (Episode._meta.get_field("guid").max_length or 500):
        raise FeedError(f"<guid> {item.guid[:60]!r}… is longer than 500 characters", line)
    return values


def _check_url(url: str, where: str, line: int | None) -> None:
    if not url:
        return
    try:
        WebURLValidator()(url)
    except ValidationError as exc:
        raise FeedError(
            f"{where}: {url!r} is not a web address ({exc.messages[0]})", line
        ) from None


def _role(person: FeedPerson) -> str | None:
    """The appearance role for a `podcast:person` role: hosts and guests; crew is not kept."""
    if "host" in person.role:
        return Appearance.Role.HOST
    if person.role == "guest":
        return Appearance.Role.GUEST
    return None


class _People:
    """People found by name (case-insensitively) or created, once per import."""

    def __init__(self, result: FeedImport) -> None:
        self.result = result
        self.by_name: dict[str, Person] = {}
        self.changed: set[int] = set()

    def get(self, feed_person: FeedPerson, line: int) -> Person:
        key = feed_person.name.casefold()
        if key in self.by_name:
            return self.by_name[key]
        href = feed_person.href or ""
        _check_url(href, f"<podcast:person> {feed_person.name!r} href", line)
        limit = Person._meta.get_field("name").max_length or 200
        if len(feed_person.name) > limit:
            raise FeedError(f"<podcast:person> name is longer than {limit} characters", line)
        person = Person.objects.filter(name__iexact=feed_person.name).order_by("pk").first()
        if person is None:
            person = Person.objects.create(
                name=feed_person.name, slug=_free_slug(feed_person.name), url=href
            )
            self.result.people_created.append(person)
        elif href and not person.url:
            person.url = href
            person.save(update_fields=["url"])
            self.changed.add(person.pk)
        self.by_name[key] = person
        return person


def _free_slug(name: str) -> str:
    base = slugify(name)[:90] or "person"
    slug, n = base, 1
    while Person.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def apply_feed(
    show: Show, feed: Feed, *, user: Actor, source: str = "", prefer_feed: bool = False
) -> FeedImport:
    """Bring `show`'s episodes in line with `feed`; see the module's docstring.

    Raises FeedError (naming the item's line) and saves nothing when an item cannot be
    stored. `prefer_feed` (the demo loader only) lets the feed's word replace an
    editor's: the demo's feed is the demo's truth.
    """
    run = _Run.start(show, feed)
    for item in feed.items:
        _apply_item(run, item, prefer_feed=prefer_feed)
    result = run.result
    for episode in Episode.objects.filter(show=show):
        found = differences(episode)
        if found:
            result.differences[episode.pk] = found
    _record_feed_edits(run, user=user, source=source)
    return result


@dataclass
class _Run:
    """One import's state: its result, the show's episodes by guid and by (season,
    number), who appears where, and what changed."""

    show: Show
    feed: Feed
    result: FeedImport
    by_guid: dict[str, Episode]
    by_number: dict[tuple[int, int], Episode]
    people: _People
    # Who already appears on which episode, read once: an unchanged refresh costs the
    # same few queries however long the feed is.
    appearing: set[tuple[int, int]]
    changed_episodes: set[int] = field(default_factory=set)
    claimed: dict[tuple[int, int], int] = field(default_factory=dict)  # -> the item line

    @classmethod
    def start(cls, show: Show, feed: Feed) -> _Run:
        result = FeedImport(show=show)
        episodes = list(Episode.objects.filter(show=show).order_by("pk"))
        return cls(
            show=show,
            feed=feed,
            result=result,
            by_guid={e.guid: e for e in episodes if e.guid},
            by_number={(e.season, e.number): e for e in episodes},
            people=_People(result),
            appearing=set(
                Appearance.objects.filter(episode__show=show).values_list("episode_id", "person_id")
            ),
        )


def _apply_item(run: _Run, item: FeedItem, *, prefer_feed: bool) -> None:
    """One item: the episode it names (by guid, then by number) refreshed, or a new one."""
    found_wrong: list[str] = list(item.warnings)
    values = item_values(item, warnings=found_wrong)
    chapters = _chapters(item, found_wrong)
    run.result.warnings.extend(f"“{item.title}”, {warning}" for warning in found_wrong)
    season, number = _int_or_none(values["season"]), _int_or_none(values["number"])
    unusable = _unusable(item, values)
    episode = run.by_guid.get(item.guid)
    if episode is None and number is not None:
        episode = run.by_number.get((season or 1, number))
        if episode is not None and episode.guid:
            raise FeedError(
                f"<guid> {item.guid!r}: season {episode.season} episode {episode.number} "
                f"already has the guid {episode.guid!r}. If the show changed it, correct "
                "the guid in the episode admin and import again",
                item.line,
            )
    if episode is None:
        _add_episode(run, item, values, chapters, season, number, unusable)
    else:
        _refresh_episode(run, episode, item, values, chapters, unusable, prefer_feed)


def _add_episode(
    run: _Run,
    item: FeedItem,
    values: dict[str, Value],
    chapters: list[dict[str, Any]],
    season: int | None,
    number: int | None,
    unusable: set[str],
) -> None:
    """A new episode from an item that names none of the show's; skipped, and said so,
    when it has no usable number or season (season 1 would be a guess)."""
    result = run.result
    if number is None:
        result.skipped.append(
            f"line {item.line}: “{item.title}” has no "
            + ("usable " if "number" in unusable else "")
            + "episode number (<itunes:episode> or <podcast:episode>)"
        )
        return
    if "season" in unusable:
        # Season 1 would be a guess: a new episode waits for a season to be read.
        result.skipped.append(
            f"line {item.line}: “{item.title}” has no usable season number "
            "(<itunes:season> or <podcast:season>)"
        )
        return
    episode = Episode(show=run.show, guid=item.guid, season=season or 1)
    for name in FIELDS:
        if not _empty(values[name]):
            _set(episode, name, values[name])
    _claim(run.claimed, episode, item)
    _check_free(episode, run.by_number, item)
    episode.feed_values = values
    if chapters:
        episode.chapters = chapters
    episode.save()
    run.by_guid[item.guid] = episode
    run.by_number[(episode.season, episode.number)] = episode
    result.created.append(episode)
    _appearances(episode, item, run.feed, run.people, run.appearing, run.changed_episodes)


def _refresh_episode(
    run: _Run,
    episode: Episode,
    item: FeedItem,
    values: dict[str, Value],
    chapters: list[dict[str, Any]],
    unusable: set[str],
    prefer_feed: bool,
) -> None:
    """An episode the item names, brought in line with it (an editor's word stands unless
    `prefer_feed`); saved only when something changed."""
    result = run.result
    old_key = (episode.season, episode.number)
    old_values, old_guid = episode.feed_values, episode.guid
    for name in unusable & old_values.keys():
        # A value the feed gave but that could not be read is not the feed's new word:
        # its last one stands, so a later good value is still told from a correction.
        values[name] = old_values[name]
    held: list[str] = []
    changed_fields = _refresh(episode, values, prefer_feed=prefer_feed, held=held)
    result.warnings.extend(f"“{item.title}”, line {item.line}: {why}" for why in held)
    episode.guid = item.guid
    _claim(run.claimed, episode, item)
    if (episode.season, episode.number) != old_key:
        _check_free(episode, run.by_number, item)
        run.by_number.pop(old_key, None)
        run.by_number[(episode.season, episode.number)] = episode
    episode.feed_values = values
    old_chapters = episode.chapters
    if chapters:
        episode.chapters = chapters
    if (
        changed_fields
        or old_values != values
        or old_guid != item.guid
        or old_chapters != episode.chapters
    ):
        episode.save()
    added = _appearances(episode, item, run.feed, run.people, run.appearing, run.changed_episodes)
    if changed_fields:
        run.changed_episodes.add(episode.pk)
    if changed_fields or added:
        result.updated.append(episode)
    else:
        result.unchanged += 1


def _record_feed_edits(run: _Run, *, user: Actor, source: str) -> None:
    """What the feed changed, recorded as versions of the entries showing it (readers see
    it only when someone else publishes them), and credited, for the desk, to whoever
    answers for the feed."""
    result = run.result
    what = f"Updated from the feed of {run.show.name}"
    if source:
        what += f" ({source})"
    versions = publishing.record_reference_change(
        PublicRecord.Kind.EPISODE, run.changed_episodes, user=user, what=what + "."
    )
    versions += publishing.record_reference_change(
        PublicRecord.Kind.PERSON, run.people.changed, user=user, what=what + "."
    )
    # What the feed added is written, for the desk, by whoever answers for the feed.
    publishing.note_record_edits(
        PublicRecord.Kind.EPISODE, [e.pk for e in result.created], user=user
    )
    publishing.note_record_edits(
        PublicRecord.Kind.PERSON, [p.pk for p in result.people_created], user=user
    )
    result.entries_versioned = len({v.entry_id for v in versions})


def _int_or_none(value: Value) -> int | None:
    return value if isinstance(value, int) else None


def _unusable(item: FeedItem, values: dict[str, Value]) -> set[str]:
    """The fields the item gave a value for that was left out: unreadable in the feed, or
    too big for the column (item_values)."""
    found = set()
    for name, element, given in (
        ("season", "season", item.season),
        ("number", "episode", item.episode),
        ("duration", "duration", item.duration),
    ):
        if element in item.unreadable or (given is not None and values[name] is None):
            found.add(name)
    return found


def _chapters(item: FeedItem, warnings: list[str]) -> list[dict[str, Any]]:
    """The item's inline chapters in JSON Chapters' shape (`startTime` in seconds); a link
    or image that is not a web address is left out of its chapter, with a warning."""
    chapters = []
    for chapter in item.inline_chapters:
        found: dict[str, Any] = {"startTime": chapter.start_time}
        if chapter.title:
            found["title"] = chapter.title
        for key, attribute, url in (("url", "href", chapter.url), ("img", "image", chapter.img)):
            if not url:
                continue
            try:
                _check_url(url, f"<psc:chapter> {attribute}", None)
            except FeedError as exc:
                warnings.append(
                    f"line {item.line}: {exc}; the chapter at "
                    f"{format_timestamp(int(chapter.start_time))} is kept without it"
                )
                continue
            found[key] = url
        chapters.append(found)
    return chapters


def _claim(claimed: dict[tuple[int, int], int], episode: Episode, item: FeedItem) -> None:
    key = (episode.season, episode.number)
    if key in claimed:
        raise FeedError(
            f"item {item.guid!r} is season {key[0]} episode {key[1]}, like the item at line "
            f"{claimed[key]}",
            item.line,
        )
    claimed[key] = item.line


def _check_free(
    episode: Episode, by_number: dict[tuple[int, int], Episode], item: FeedItem
) -> None:
    other = by_number.get((episode.season, episode.number))
    if other is not None and other.pk != episode.pk:
        raise FeedError(
            f"item {item.guid!r} is season {episode.season} episode {episode.number}, which "
            f"is already “{other.title}” (guid {other.guid!r}); correct one of them in the "
            "episode admin",
            item.line,
        )


def _cited_past(episode: Episode, current: Value, new: Value) -> list[str]:
    """What entries cite in `episode` after a duration of `new`, when `new` shortens it."""
    if not isinstance(new, int) or (isinstance(current, int) and new >= current):
        return []
    return episode.moments_past(new)


def _refresh(
    episode: Episode, values: dict[str, Value], *, prefer_feed: bool, held: list[str]
) -> list[str]:
    """Apply the feed's values where the editor has not corrected the field; return those set.

    A value that would make a cited time false (a duration ending before a quote) is not
    applied: `held` says why."""
    changed = []
    kept = dict(episode.feed_kept)
    for name in FIELDS:
        new = values[name]
        if _empty(new):
            continue  # the feed says nothing: the episode keeps its value
        current = current_value(episode, name)
        if current == new:
            kept.pop(name, None)
            continue
        previous = episode.feed_values.get(name)
        corrected = not _empty(current) and (name not in episode.feed_values or current != previous)
        if corrected and not prefer_feed:
            continue  # waits in the admin as a difference (or was kept)
        if name == "duration" and (past := _cited_past(episode, current, new)):
            # As the episode form refuses it: a shorter duration would leave cited moments
            # past the audio's end. It waits in the admin as a difference, said here.
            held.append(
                f"<itunes:duration> {display(name, new)} is shorter than {'; '.join(past)}; "
                f"the episode keeps {display(name, current)} until those times are corrected"
            )
            continue
        _set(episode, name, new)
        kept.pop(name, None)
        changed.append(name)
    episode.feed_kept = kept
    return changed


def _appearances(
    episode: Episode,
    item: FeedItem,
    feed: Feed,
    people: _People,
    appearing: set[tuple[int, int]],
    changed_episodes: set[int],
) -> bool:
    """Add the item's hosts and guests, and the channel's of each role the item names
    nobody in (the show's host, named once for the whole feed)."""
    added = False
    named = {_role(p) for p in item.persons}
    channel = [p for p in feed.persons if _role(p) not in named]
    for feed_person in (*item.persons, *channel):
        role = _role(feed_person)
        if role is None:
            continue
        person = people.get(feed_person, item.line)
        if (episode.pk, person.pk) in appearing:
            continue
        Appearance.objects.create(episode=episode, person=person, role=role)
        appearing.add((episode.pk, person.pk))
        added = True
    if added:
        changed_episodes.add(episode.pk)
    return added


@transaction.atomic
def take(episode: Episode, name: str, *, user: Actor) -> list[Any]:
    """Give a field the feed's value, recorded like an editor's correction in the admin."""
    if name not in FIELDS or name not in episode.feed_values:
        raise ValueError(f"The feed says nothing about {name!r}.")
    value = episode.feed_values[name]
    if name in ("season", "number"):
        season = int(value) if name == "season" and value is not None else episode.season
        number = int(value) if name == "number" and value is not None else episode.number
        other = (
            Episode.objects.filter(show=episode.show, season=season, number=number)
            .exclude(pk=episode.pk)
            .first()
        )
        if other is not None:
            raise ValidationError(
                f"Season {season} episode {number} is already “{other.title}”; "
                "change that episode first."
            )
    past = _cited_past(episode, current_value(episode, name), value) if name == "duration" else []
    if past:
        raise ValidationError(
            f"The feed's duration {display(name, value)} would end the episode before "
            f"{'; '.join(past)}. Correct those times first, or keep the longer duration."
        )
    _set(episode, name, value)
    kept = dict(episode.feed_kept)
    kept.pop(name, None)
    episode.feed_kept = kept
    episode.full_clean(exclude=["show"])
    episode.save()
    versions: list[Any] = publishing.record_reference_change(
        PublicRecord.Kind.EPISODE,
        [episode.pk],
        user=user,
        what=f"Episode “{episode}”: {LABELS[name]} taken from the show's feed.",
    )
    return versions


def keep(episode: Episode, name: str) -> None:
    """Keep the editor's value against the feed's current one; a later change asks again."""
    if name not in FIELDS or name not in episode.feed_values:
        raise ValueError(f"The feed says nothing about {name!r}.")
    episode.feed_kept = {**episode.feed_kept, name: episode.feed_values[name]}
    episode.save(update_fields=["feed_kept"])


def waiting(episodes: Iterable[Episode]) -> dict[int, list[Difference]]:
    return {e.pk: found for e in episodes if (found := differences(e))}
