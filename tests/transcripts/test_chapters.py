import json
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from glossary.transcripts.chapters import Chapter, chapters_json, soundbites


def test_it_writes_the_json_chapters_format_with_the_specifications_field_names():
    document = chapters_json(
        [
            Chapter(1538, "Interconnect", url="https://glossary.example/glossary/interconnect/"),
            Chapter(0, "Intro"),
            Chapter(
                1917.5,
                "Sponsor: Galileo",
                img="https://glossary.example/galileo.png",
                end_time=1925,
                toc=False,
            ),
        ],
        title="Scale Across",
        podcast_name="The Show",
    )

    assert document == {
        "version": "1.2.0",
        "title": "Scale Across",
        "podcastName": "The Show",
        "chapters": [
            {"startTime": 0, "title": "Intro"},
            {
                "startTime": 1538,
                "title": "Interconnect",
                "url": "https://glossary.example/glossary/interconnect/",
            },
            {
                "startTime": 1917.5,
                "title": "Sponsor: Galileo",
                "img": "https://glossary.example/galileo.png",
                "toc": False,
                "endTime": 1925,
            },
        ],
    }
    assert json.loads(json.dumps(document)) == document


def test_an_empty_chapter_list_is_still_a_valid_document():
    assert chapters_json([]) == {"version": "1.2.0", "chapters": []}


@pytest.mark.parametrize(
    ("chapter", "problem"),
    [
        (Chapter(-1, "Before the start"), "starts at -1"),
        (Chapter(10, "Backwards", end_time=5), "ends at 5, before it starts at 10"),
    ],
)
def test_it_refuses_a_chapter_with_impossible_times(chapter, problem):
    with pytest.raises(ValueError, match=problem):
        chapters_json([chapter])


@dataclass
class Quote:
    start: int | None
    end: int | None
    text: str


def test_it_suggests_soundbites_in_time_order_with_start_and_duration():
    bites = soundbites(
        [
            Quote(1538, 1569, "Operate as one giant cluster, one coherent cluster."),
            Quote(187, None, "Even in the hardware, at the microarchitecture level"),
        ]
    )

    assert bites == [
        {
            "startTime": 187,
            "duration": 15,
            "title": "Even in the hardware, at the microarchitecture level",
        },
        {
            "startTime": 1538,
            "duration": 31,
            "title": "Operate as one giant cluster, one coherent cluster.",
        },
    ]


def test_a_soundbite_lasts_as_long_as_its_words_within_the_recommended_range():
    sixty_words = " ".join(["word"] * 60)

    assert soundbites([Quote(0, None, sixty_words)])[0]["duration"] == 24  # 60 words at 2.5/s
    assert soundbites([Quote(0, 500, "A long stretch")])[0]["duration"] == 120
    assert soundbites([Quote(0, 3, "Short")])[0]["duration"] == 15


def test_it_skips_quotes_without_a_start_and_reads_any_object_with_the_fields():
    bites = soundbites([SimpleNamespace(start=None, end=None, text="Unplaced"), Quote(5, 20, "Hi")])

    assert bites == [{"startTime": 5, "duration": 15, "title": "Hi"}]


def test_a_long_quote_is_shortened_to_the_recommended_title_length_at_a_word():
    text = "Operate as one giant cluster, one coherent cluster. " * 5

    title = str(soundbites([Quote(0, 30, text)])[0]["title"])

    assert len(title) <= 128
    assert title.endswith("…")
    assert text.startswith(title[:-1])
    assert not title[:-1].endswith((" ", ","))
