"""Benchmark: what storing and comparing source texts costs at 10,000 sources.

    .venv/bin/python bench/sourcetext/run.py [--sources 10000] [--latest 3] [--seed 14]

Generates vendor and standards pages deterministically (see `pages.py`): a few
KB of main text each, furniture around it, boilerplate shared by a publisher's
pages, two to six versions per source with small edits. Each version goes
through the real path: `readable_text`, `content_hash`, `compress` into one
store deduplicated by hash; a source's history is every sighting of its texts;
`to_keep` keeps the confirmed text and the latest N. Prints the bytes stored
per source and, per source, the time to diff the confirmed text against the
latest and find the figures gone and the note's problems, as ratios against
`fingerprint()` of the same page in the same run (the cost every check already
pays). Exits 1 when the bytes stored per source exceed the budget.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from pages import Corpus, generate_source  # type: ignore[import-not-found]  # noqa: E402

from editorial.linkcheck.fingerprint import fingerprint  # noqa: E402
from editorial.sourcetext.claims import check_note  # noqa: E402
from editorial.sourcetext.diff import diff  # noqa: E402
from editorial.sourcetext.figures import figures_gone  # noqa: E402
from editorial.sourcetext.store import (  # noqa: E402
    StoredRef,
    compress,
    content_hash,
    decompress,
    to_keep,
)
from editorial.sourcetext.text import readable_text  # noqa: E402

# Budget for the text store: 8 KiB per source, 80 MiB at 10,000 sources (see
# bench/README.md for why). A typical source keeps three or four texts.
BUDGET_BYTES_PER_SOURCE = 8 * 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=10_000)
    parser.add_argument("--latest", type=int, default=3, help="latest texts kept per source")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--budget", type=int, default=BUDGET_BYTES_PER_SOURCE)
    args = parser.parse_args()

    corpus = Corpus.load()
    store: dict[str, bytes] = {}
    history: list[StoredRef] = []
    confirmed: set[str] = set()
    versions = texts = main_bytes = 0
    fingerprint_ns: list[int] = []
    readable_ns: list[int] = []
    compare_ns: list[int] = []
    compress_ns = 0
    started = time.perf_counter()
    for source_id in range(args.sources):
        source = generate_source(corpus, args.seed, source_id)
        versions += len(source.pages)
        hashes: list[str] = []
        for page in source.pages:
            t0 = time.perf_counter_ns()
            fingerprint(page)
            t1 = time.perf_counter_ns()
            text = readable_text(page, "text/html; charset=utf-8")
            t2 = time.perf_counter_ns()
            fingerprint_ns.append(t1 - t0)
            readable_ns.append(t2 - t1)
            digest = content_hash(text)
            if digest not in store:
                t3 = time.perf_counter_ns()
                store[digest] = compress(text)
                compress_ns += time.perf_counter_ns() - t3
                texts += 1
                main_bytes += len(text.encode())
            hashes.append(digest)
        for day, index in enumerate(source.sightings):
            history.append(StoredRef(source_id, hashes[index], source.seen_at(day)))
        confirmed.add(hashes[source.confirmed])
        # What a check that finds a new text does: compare with the confirmed text.
        old = decompress(store[hashes[source.confirmed]])
        new = decompress(store[hashes[source.sightings[-1]]])
        t4 = time.perf_counter_ns()
        diff(old, new)
        figures_gone(old, new)
        check_note(source.note, new, old)
        compare_ns.append(time.perf_counter_ns() - t4)
    elapsed = time.perf_counter() - started

    keep = to_keep(history, confirmed, args.latest)
    kept_bytes = sum(len(store[digest]) for digest in keep)
    all_bytes = sum(len(data) for data in store.values())
    per_source = kept_bytes / args.sources
    raw_kept = sum(len(decompress(store[digest]).encode()) for digest in keep)
    fp = statistics.median(fingerprint_ns)
    rd = statistics.median(readable_ns)
    cmp_median = statistics.median(compare_ns)
    cmp_p99 = sorted(compare_ns)[int(len(compare_ns) * 0.99)]
    sample = [decompress(store[d]).encode() for d in list(store)[:500]]
    single = sum(map(len, sample)) / sum(len(zlib.compress(t, 9)) for t in sample)

    print(f"corpus: {corpus.describe()}; generated and processed in {elapsed:.1f} s")
    print(f"sources {args.sources:,}, versions {versions:,}, distinct texts {texts:,}")
    print(f"main text per distinct version: {main_bytes / texts:,.0f} bytes (UTF-8)")
    print(f"zlib ratio on one text: {single:.2f}x (real documentation pages: 3.0x)")
    print(f"texts kept (confirmed + latest {args.latest}): {len(keep):,}")
    print(
        f"  {len(keep) / args.sources:.2f} texts per source, {raw_kept / args.sources:,.0f} B raw"
    )
    print(f"  stored compressed: {kept_bytes:,} B = {per_source:,.0f} B per source")
    print(f"  before retention (every version): {all_bytes / args.sources:,.0f} B per source")
    print(f"per page, median: fingerprint {fp / 1000:.0f} µs (reference), ", end="")
    print(f"readable_text {rd / 1000:.0f} µs ({rd / fp:.2f}x)")
    print(f"compress per new text: {compress_ns / texts / 1000:.0f} µs")
    print(
        f"per source, diff + figures_gone + check_note: median {cmp_median / 1000:.0f} µs "
        f"({cmp_median / fp:.1f}x a fingerprint), p99 {cmp_p99 / 1000:.0f} µs"
    )
    verdict = "met" if per_source <= args.budget else "MISSED"
    print(f"budget {args.budget:,} B per source: {verdict}")
    return 0 if per_source <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
