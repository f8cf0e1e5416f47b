"""A deterministic two-hour interview transcript, and quotes taken from it.

The text is built from a small vocabulary about AI infrastructure on purpose: the same
subjects, verbs and phrases recur hundreds of times, as a real conversation's do, so a
quote's words are found all over the transcript and only their order places it. That is
the hard case for the candidate search. Fillers and doubled words are sprinkled in as
speech has them; quotes are taken with them removed, as an editor would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

SUBJECTS = [
    "the network", "a cluster", "the rack", "every GPU", "the software", "our customers",
    "the data center", "the compiler", "the interconnect", "a large model", "the scheduler",
    "the memory", "the team", "each switch", "the optics", "the power budget", "the fabric",
    "the training run", "an inference server", "the storage layer",
]  # fmt: skip
VERBS = [
    "has to move", "keeps", "needs", "connects", "waits for", "shares", "pushes", "drives",
    "limits", "feeds", "trains on", "serves", "splits", "copies", "balances", "measures",
    "spreads", "protects", "schedules", "compresses",
]  # fmt: skip
OBJECTS = [
    "the results", "more power", "the weights", "every token", "the traffic", "a lot of data",
    "the activations", "the gradients", "the next step", "thousands of links", "the experts",
    "the checkpoints", "the queue", "the cooling", "the bandwidth", "the latency",
]  # fmt: skip
TAILS = [
    "across the building", "in the same rack", "every few milliseconds", "at the same time",
    "without waiting", "between the chips", "over long distances", "for the next model",
    "inside one server", "when the job fails", "during training", "at the edge",
]  # fmt: skip
OPENERS = [
    "", "", "", "and", "but", "so", "I think", "what happens is", "the point is", "honestly",
    "if you look at it", "in practice", "the thing is", "and then",
]  # fmt: skip
FILLERS = ["um", "uh", "you know", "I mean", "like"]
SPEAKERS = ["Conor", "Jeetu Patel"]

WORDS_PER_SECOND = 2.8  # about 170 words a minute: brisk conversation


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    speaker: str
    text: str


@dataclass(frozen=True)
class Quote:
    text: str  # as an editor would publish it: fillers removed
    said_at: int  # where it really starts (the start of its first cue, in whole seconds)
    speaker: str


def sentence(rnd: random.Random) -> list[str]:
    parts = [rnd.choice(OPENERS), rnd.choice(SUBJECTS), rnd.choice(VERBS), rnd.choice(OBJECTS)]
    if rnd.random() < 0.7:
        parts.append(rnd.choice(TAILS))
    words: list[str] = []
    for part in parts:
        if part and words and rnd.random() < 0.12:
            words.append(rnd.choice(FILLERS) + ",")
        for word in part.split():
            words.append(word)
            if rnd.random() < 0.02:
                words.append(word)  # a doubled word, as people stumble
    words[-1] += "."
    words[0] = words[0][0].upper() + words[0][1:]
    return words


def transcript(words: int = 20_000, seed: int = 44) -> list[Cue]:
    """About `words` words of conversation in cues of 8-14 words, speakers taking turns of a
    few sentences each."""
    rnd = random.Random(seed)
    stream: list[tuple[str, str]] = []
    speaker = SPEAKERS[0]
    while len(stream) < words:
        speaker = SPEAKERS[1] if speaker == SPEAKERS[0] else SPEAKERS[0]
        for _ in range(rnd.randint(1, 6)):
            stream.extend((speaker, word) for word in sentence(rnd))
    cues: list[Cue] = []
    at = 0.0
    position = 0
    while position < len(stream):
        speaker = stream[position][0]
        size = rnd.randint(8, 14)
        chunk: list[str] = []
        while position < len(stream) and len(chunk) < size and stream[position][0] == speaker:
            chunk.append(stream[position][1])
            position += 1
        duration = len(chunk) / WORDS_PER_SECOND
        cues.append(Cue(round(at, 3), round(at + duration, 3), speaker, " ".join(chunk)))
        at += duration + 0.2
    return cues


def quotes(cues: list[Cue], count: int, seed: int = 28) -> list[Quote]:
    """Quotes of 12-30 words from one speaker's turn, starting at a cue, fillers removed."""
    rnd = random.Random(seed)
    found: list[Quote] = []
    while len(found) < count:
        first = rnd.randrange(len(cues) - 6)
        speaker = cues[first].speaker
        words: list[str] = []
        for cue in cues[first : first + 6]:
            if cue.speaker != speaker:
                break
            words.extend(cue.text.split())
        length = rnd.randint(12, 30)
        if len(words) < length:
            continue
        edited = " ".join(words[:length])
        for filler in FILLERS:
            edited = edited.replace(f" {filler},", "").replace(f"{filler.capitalize()}, ", "")
        found.append(Quote(edited, int(cues[first].start), speaker))
    return found


def unsaid(count: int, seed: int = 187) -> list[str]:
    """Sentences from the same vocabulary, generated apart: they resemble the transcript
    everywhere, and a quote made of them was (almost certainly) never said in that order."""
    rnd = random.Random(seed)
    return [
        " ".join(w for w in sentence(rnd) + sentence(rnd) if not w.endswith(","))
        for _ in range(count)
    ]


def webvtt(cues: list[Cue]) -> str:
    def clock(seconds: float) -> str:
        millis = round(seconds * 1000)
        hours, rest = divmod(millis, 3_600_000)
        minutes, rest = divmod(rest, 60_000)
        return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d}.{rest % 1000:03d}"

    blocks = ["WEBVTT\n\nNOTE Generated for the benchmark; not speech.\n"]
    for cue in cues:
        blocks.append(f"{clock(cue.start)} --> {clock(cue.end)}\n<v {cue.speaker}>{cue.text}\n")
    return "\n".join(blocks)
