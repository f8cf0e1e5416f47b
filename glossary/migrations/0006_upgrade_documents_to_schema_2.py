"""Upgrade every stored version's document from schema 1 to schema 2 (glossary.document).

Schema 1 nested a copy of each episode, person and organisation inside every
part, and baked generated text into disclosures (the sponsorship sentence, its
"intro at" label and time). Schema 2 keeps facts once, by id, and stores only
what the editor wrote; rendering derives the rest. The conversion is written
out here, not imported, so it keeps working whatever the app code becomes.

Appearances (who was on each episode, for whom) were not in schema 1: they are
taken from the database as it stands now, which is what the public episode
pages showed, plus any speaker's affiliation the old document recorded.

Pages are not re-rendered here (that needs the app's templates): the release
step runs `manage.py rerender` after `migrate` (docker/release.sh).
"""

from typing import Any

from django.db import migrations
from django.utils.text import slugify


def _episode_facts(ep: dict[str, Any], db_episode: Any) -> dict[str, Any]:
    url, audio_url = ep.get("url") or "", ""
    if db_episode is not None and (db_episode.url or db_episode.audio_url) == url:
        url, audio_url = db_episode.url, db_episode.audio_url
    return {
        "id": ep["id"],
        "show": ep["show"]["id"],
        "season": ep["season"],
        "number": ep["number"],
        "title": ep["title"],
        "air_date": ep.get("air_date"),
        "duration": ep.get("duration"),
        "url": url,
        "audio_url": audio_url,
        "sponsors": [
            {"organisation": s["organisation"]["id"], "read_at": s["read_at"]}
            for s in ep.get("sponsors", [])
        ],
        "appearances": [],
    }


def upgrade(data: dict[str, Any], apps: Any, tag_rows: list[Any]) -> dict[str, Any]:
    """A schema-1 document as schema 2. `tag_rows` are the version's Tag rows."""
    Appearance = apps.get_model("glossary", "Appearance")
    Episode = apps.get_model("glossary", "Episode")
    Person = apps.get_model("glossary", "Person")
    Organisation = apps.get_model("glossary", "Organisation")
    Tag = apps.get_model("taggit", "Tag")

    episodes: dict[int, dict[str, Any]] = {}
    shows: dict[int, dict[str, Any]] = {}
    people: dict[int, dict[str, Any]] = {}
    orgs: dict[int, dict[str, Any]] = {}
    spoke_for: set[tuple[int, int, int]] = set()

    def person(p: dict[str, Any] | None) -> int | None:
        if not p:
            return None
        people.setdefault(p["id"], {"id": p["id"], "name": p["name"], "slug": p["slug"]})
        return int(p["id"])

    def org(o: dict[str, Any] | None) -> int | None:
        if not o:
            return None
        orgs.setdefault(
            o["id"], {"id": o["id"], "name": o["name"], "slug": o["slug"], "url": o.get("url", "")}
        )
        return int(o["id"])

    def episode(ep: dict[str, Any] | None) -> int | None:
        if not ep:
            return None
        if ep["id"] not in episodes:
            show = ep["show"]
            shows.setdefault(
                show["id"],
                {
                    "id": show["id"],
                    "name": show["name"],
                    "slug": show["slug"],
                    "deep_link_style": show["deep_link_style"],
                },
            )
            db_episode = Episode.objects.filter(pk=ep["id"]).first()
            episodes[ep["id"]] = _episode_facts(ep, db_episode)
            for s in ep.get("sponsors", []):
                org(s["organisation"])
        return int(ep["id"])

    def disclosure(d: dict[str, Any]) -> dict[str, Any]:
        generated = d.get("generated", False)
        return {
            "kind": d["kind"],
            "text": "" if generated else d["text"],
            # A generated sentence's time came from the sponsor read, not the editor.
            "at": None if generated and d.get("at_label") else d.get("at"),
            "episode": episode(d.get("episode")),
            "organisation": org(d.get("organisation")),
            "person": person(d.get("person")),
        }

    references = []
    for r in data.get("references", []):
        ep, speaker, affiliation = episode(r["episode"]), person(r.get("speaker")), None
        affiliation = org(r.get("affiliation"))
        if ep is not None and speaker is not None and affiliation is not None:
            spoke_for.add((ep, speaker, affiliation))
        references.append(
            {
                "episode": ep,
                "at": r["at"],
                "speaker": speaker,
                "text": r["text"],
                "disclosures": [disclosure(d) for d in r.get("disclosures", [])],
            }
        )
    quotes = []
    for q in data.get("quotes", []):
        ep, speaker = episode(q["episode"]), person(q["speaker"])
        affiliation = org(q.get("affiliation"))
        if ep is not None and speaker is not None and affiliation is not None:
            spoke_for.add((ep, speaker, affiliation))
        quotes.append(
            {
                "episode": ep,
                "speaker": speaker,
                "start": q["start"],
                "end": q.get("end"),
                "text": q["text"],
                "verbatim": q.get("verbatim", ""),
                "lightly_edited": q["lightly_edited"],
            }
        )
    loose = [disclosure(d) for d in data.get("disclosures", [])]

    sources: dict[int, dict[str, Any]] = {}
    citations = []
    for c in data.get("citations", []):
        s = c["source"]
        sources.setdefault(
            s["id"],
            {
                "id": s["id"],
                "url": s["url"],
                "title": s["title"],
                "publisher": s.get("publisher", ""),
                "kind": s.get("kind", "other"),
                "archive_url": s.get("archive_url", ""),
                "archive_date": s.get("archive_date"),
                "citation_status": s.get("citation_status", "live"),
            },
        )
        citations.append({"source": s["id"], "note": c["note"], "checked_on": c["checked_on"]})

    # Who was on each episode: the database's appearances, and the old document's
    # "spoke for" pairs the database no longer has.
    known: set[tuple[int, int]] = set()
    rows = Appearance.objects.filter(episode_id__in=list(episodes)).order_by("role", "pk")
    for a in rows:
        episodes[a.episode_id]["appearances"].append(
            {
                "person": a.person_id,
                "role": a.role,
                "affiliation": a.affiliation_id,
                "title": a.title,
            }
        )
        known.add((a.episode_id, a.person_id))
        people.setdefault(a.person_id, None)  # type: ignore[arg-type]
        if a.affiliation_id:
            orgs.setdefault(a.affiliation_id, None)  # type: ignore[arg-type]
    for ep, speaker, affiliation in sorted(spoke_for):
        if (ep, speaker) not in known:
            episodes[ep]["appearances"].append(
                {"person": speaker, "role": "guest", "affiliation": affiliation, "title": ""}
            )
    for row in Person.objects.filter(pk__in=[k for k, v in people.items() if v is None]):
        people[row.pk] = {"id": row.pk, "name": row.name, "slug": row.slug}
    for row in Organisation.objects.filter(pk__in=[k for k, v in orgs.items() if v is None]):
        orgs[row.pk] = {"id": row.pk, "name": row.name, "slug": row.slug, "url": row.url}

    by_name = {t.name: t for t in tag_rows}
    tags = []
    for name in data.get("tags", []):
        tag = by_name.get(name) or Tag.objects.filter(name=name).first()
        if tag is None:
            tag = Tag.objects.create(name=name, slug=slugify(name) or name)
        tags.append({"id": tag.pk, "name": tag.name, "slug": tag.slug})

    return {
        "schema_version": 2,
        "id": data["id"],
        "term": data["term"],
        "slug": data["slug"],
        "aliases": list(data.get("aliases", [])),
        "summary": data.get("summary", ""),
        "body": data.get("body", ""),
        "tags": tags,
        "references": references,
        "disclosures": loose,
        "quotes": quotes,
        "citations": citations,
        "see_also": [
            {
                "entry": s["entry_id"],
                "term": s["term"],
                "link_text": "" if s["link_text"] == s["term"] else s["link_text"],
                "note": s["note"],
            }
            for s in data.get("see_also", [])
        ],
        "episodes": sorted(episodes.values(), key=lambda e: e["id"]),
        "shows": sorted(shows.values(), key=lambda s: s["id"]),
        "people": sorted((p for p in people.values() if p), key=lambda p: p["id"]),
        "organisations": sorted((o for o in orgs.values() if o), key=lambda o: o["id"]),
        "sources": sorted(sources.values(), key=lambda s: s["id"]),
    }


def forwards(apps: Any, schema_editor: Any) -> None:
    from glossary.bulk import bulk_write

    EntryVersion = apps.get_model("glossary", "EntryVersion")
    # Vacuumed and analysed once committed, for the reads that follow (glossary.bulk).
    filled = [EntryVersion, EntryVersion.people.through, EntryVersion.organisations.through]
    with bulk_write([model._meta.db_table for model in filled]):
        for version in EntryVersion.objects.filter(data__schema=1).iterator(chunk_size=200):
            data = upgrade(version.data, apps, list(version.tags.all()))
            version.data = data
            version.save(update_fields=["data"])
            # The cross-reference indexes now also hold everyone on the episodes drawn on.
            version.people.set([p["id"] for p in data["people"]])
            version.organisations.set([o["id"] for o in data["organisations"]])


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0005_entry_page_and_api_rendered_at_publish"),
        ("taggit", "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx"),
    ]

    operations = [migrations.RunPython(forwards, elidable=False)]
