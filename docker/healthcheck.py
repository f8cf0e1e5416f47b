"""Container health checks that need nothing beyond the Python in the image.

python docker/healthcheck.py http://127.0.0.1:8000/healthz
    exit 0 if the URL answers 200 within the timeout.
python docker/healthcheck.py --beat-schedule /path/celerybeat-schedule [--max-age 600]
    exit 0 if beat has written its schedule file within max-age seconds
    (beat saves it after sending tasks, at least every few minutes).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
import urllib.request


def check_url(url: str, timeout: float) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - local URL
            return 0 if response.status == 200 else 1
    except OSError as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1


def check_beat(schedule: str, max_age: float) -> int:
    # shelve may add a suffix (.db, .dat, ...) depending on the dbm module.
    files = glob.glob(glob.escape(schedule) + "*")
    if not files:
        print(f"unhealthy: no schedule file at {schedule}", file=sys.stderr)
        return 1
    age = time.time() - max(os.path.getmtime(path) for path in files)
    if age > max_age:
        print(f"unhealthy: schedule last written {age:.0f}s ago", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url", nargs="?")
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--beat-schedule")
    parser.add_argument("--max-age", type=float, default=600.0)
    args = parser.parse_args(argv)
    if args.beat_schedule:
        return check_beat(args.beat_schedule, args.max_age)
    if args.url:
        return check_url(args.url, args.timeout)
    parser.error("give a URL or --beat-schedule")  # exits with status 2


if __name__ == "__main__":
    sys.exit(main())
