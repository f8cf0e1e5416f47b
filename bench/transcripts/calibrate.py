"""Measure the scores behind quote_verification.py's thresholds on real prose.

    .venv/bin/python bench/transcripts/calibrate.py            # the generated transcript only
    D=/usr/share/vim/vim90/doc   # the Vim user manual: plain prose on one subject
    .venv/bin/python bench/transcripts/calibrate.py --samples 300 \\
        --said $D/usr_0*.txt $D/usr_1*.txt $D/usr_2*.txt --unsaid $D/usr_3*.txt $D/usr_4*.txt

`--said` files are cut into cues and read as one transcript (about 20,000 words is a
two-hour episode); quotes are taken from it and edited the ways an editor edits; `--unsaid`
files, on the same subject but never "said", supply text that should not be found.
Prints the score distribution for each kind of quote and each length, and how many would
pass each candidate threshold. Not run by `make bench`: it informs a choice, it does not
guard one.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # type: ignore[import-not-found]  # noqa: E402

from glossary.transcripts.parse import Segment, Transcript, TranscriptFormat  # noqa: E402
from glossary.transcripts.quote_verification import find, normalise  # noqa: E402

_PROSE = re.compile(r"^[A-Z][A-Za-z ,.'()-]+$")


def prose(paths: list[Path]) -> list[str]:
    """Sentences of plain prose: lines of words, not examples, tables or headings."""
    lines = []
    for path in paths:
        for line in path.read_text(errors="replace").splitlines():
            line = line.strip()
            if len(line.split()) >= 6 and _PROSE.match(line):
                lines.append(line)
    return " ".join(lines).split()


def as_transcript(words: list[str]) -> Transcript:
    segments = []
    at = 0.0
    for start in range(0, len(words), 11):
        chunk = words[start : start + 11]
        segments.append(Segment(at, at + 4.0, "Speaker", " ".join(chunk)))
        at += 4.0
    return Transcript(TranscriptFormat.WEBVTT, tuple(segments))


EDITS: dict[str, Callable[[list[str], random.Random], list[str]]] = {
    "exact": lambda w, r: w,
    "one word dropped": lambda w, r: w[: len(w) // 2] + w[len(w) // 2 + 1 :],
    "one word replaced": lambda w, r: w[: len(w) // 2] + ["remarkable"] + w[len(w) // 2 + 1 :],
    "last fifth dropped": lambda w, r: w[: len(w) - len(w) // 5],
    "three words dropped": lambda w, r: w[: len(w) // 2 - 1] + w[len(w) // 2 + 2 :],
    "two misspellings": lambda w, r: [
        x[:-1] if i in (1, len(w) - 2) and len(x) > 3 else x for i, x in enumerate(w)
    ],
}
LENGTHS = [(3, 5), (6, 9), (10, 15), (16, 25), (26, 40)]
THRESHOLDS = [75, 80, 85, 90, 95]


def report(name: str, scores: list[float]) -> None:
    scores.sort()
    n = len(scores)
    passing = "  ".join(f"≥{t}:{sum(s >= t for s in scores) * 100 // n:3d}%" for t in THRESHOLDS)
    print(
        f"  {name:24s} n={n:3d} min {scores[0]:5.1f}  p5 {scores[n // 20]:5.1f}  "
        f"median {scores[n // 2]:5.1f}  p95 {scores[n * 19 // 20]:5.1f}  max {scores[-1]:5.1f}"
        f"   {passing}"
    )


def calibrate(said: list[str], unsaid: list[str], samples: int) -> None:
    transcript = as_transcript(said)
    spoken = normalise(" ".join(said))
    rnd = random.Random(1538)
    print(f"transcript: {len(said):,} words; unsaid text: {len(unsaid):,} words")
    for low, high in LENGTHS:
        print(f"quotes of {low}-{high} words")
        for name, edit in EDITS.items():
            if name == "three words dropped" and low < 6:
                continue  # would leave too little of a short quote to be a quote
            scores = []
            for _ in range(samples):
                length = rnd.randint(low, high)
                start = rnd.randrange(len(said) - length)
                scores.append(
                    find(" ".join(edit(said[start : start + length], rnd)), transcript).score
                )
            report(name, scores)
        scores = []
        while len(scores) < samples:
            length = rnd.randint(low, high)
            start = rnd.randrange(len(unsaid) - length)
            text = " ".join(unsaid[start : start + length])
            if normalise(text) not in spoken:
                scores.append(find(text, transcript).score)
        report("never said", scores)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--said", nargs="*", type=Path, default=[])
    parser.add_argument("--unsaid", nargs="*", type=Path, default=[])
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    if args.said:
        calibrate(prose(args.said), prose(args.unsaid), args.samples)
    else:
        cues = generate.transcript()
        said = " ".join(cue.text for cue in cues).split()
        unsaid = " ".join(generate.unsaid(3000)).split()
        print("generated transcript (a 150-word vocabulary: the worst case for chance matches)")
        calibrate(said, unsaid, args.samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
