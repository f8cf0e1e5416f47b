"""Benchmark: Glossary Desk's link checker against lychee and LinkChecker.

    .venv/bin/python bench/linkcheck/run.py [--sizes 2000 10000] [--skip-linkchecker]

Everything runs on 127.0.0.1. A local server answers every request after
50 ms; each checker gets the same distinct URLs, a global concurrency of 64
and no per-host limits. Ideal throughput is 64 / 0.05 s = 1,280 URLs/s.
Each tool runs in its own process; CPU time and peak memory come from
wait4() on that process (ours: the timed section only for CPU, the whole
process for memory, which includes Django and the migrations).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BIN = Path(sys.executable).parent
PY = sys.executable
CONCURRENCY = 64
DELAY = 0.05
IDEAL = CONCURRENCY / DELAY


def start_server(delay: float) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [PY, str(HERE / "server.py"), "--delay", str(delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, int(line.split()[1])


class TimedOut(Exception):
    pass


def run_measured(
    cmd: list[str], timeout: float = 600, **kwargs: object
) -> tuple[float, float, float, str]:
    """Run cmd; return (wall seconds, CPU seconds, peak RSS MB, stdout)."""
    out = tempfile.TemporaryFile()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, **kwargs)  # type: ignore[call-overload]
    while True:
        pid, _status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - started > timeout:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise TimedOut(f"{Path(cmd[0]).name} did not finish in {timeout:.0f} s")
        time.sleep(0.05)
    wall = time.perf_counter() - started
    proc.returncode = 0
    out.seek(0)
    text = out.read().decode(errors="replace")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text


def ours(port: int, n: int, get_only: bool) -> dict[str, object]:
    args = [PY, str(HERE / "ours.py"), str(port), str(n)] + (["--get-only"] if get_only else [])
    _wall, _cpu, peak, text = run_measured(args, cwd=ROOT)
    data = json.loads(text.strip().splitlines()[-1])
    ok = data["outcomes"].get("ok", 0)
    label = "ours (GET only)" if get_only else "ours (HEAD, then GET for text)"
    return {
        "tool": label,
        "wall": data["wall"],
        "cpu": data["cpu"],
        "peak": peak,
        "ok": ok,
        "note": f"claim {data['phases']['claim']:.2f}s, checks {data['phases']['checks']:.2f}s, "
        f"record {data['phases']['record']:.2f}s; {data['fingerprinted']} fingerprints",
    }


def lychee(port: int, n: int, workdir: Path) -> dict[str, object]:
    urls = workdir / f"urls-{n}.txt"
    urls.write_text("".join(f"http://127.0.0.1:{port}/p/{i}\n" for i in range(n)))
    wall, cpu, peak, text = run_measured(
        [
            str(BIN / "lychee"),
            "--max-concurrency",
            str(CONCURRENCY),
            "--host-concurrency",
            str(CONCURRENCY),
            "--host-request-interval",
            "0ms",
            "--no-progress",
            "--format",
            "json",
            "--cache=false",
            str(urls),
        ],
        cwd=workdir,
    )
    try:
        ok = json.loads(text).get("successful", 0)
    except json.JSONDecodeError:
        ok = 0
    return {"tool": "lychee", "wall": wall, "cpu": cpu, "peak": peak, "ok": ok, "note": ""}


def linkchecker(port: int, n: int, workdir: Path) -> dict[str, object]:
    wall, cpu, peak, text = run_measured(
        timeout=float(os.environ.get("LINKCHECKER_TIMEOUT", "120")),
        cmd=[
            str(BIN / "linkchecker"),
            "--threads",
            str(CONCURRENCY),
            "--recursion-level",
            "1",
            "--no-status",
            "--no-warnings",
            "--output",
            "csv",
            f"http://127.0.0.1:{port}/index?n={n}",
        ],
        cwd=workdir,
        env={**os.environ, "HOME": str(workdir)},
    )
    checked = sum(1 for line in text.splitlines() if "/p/" in line.split(";", 1)[0])
    return {
        "tool": "LinkChecker",
        "wall": wall,
        "cpu": cpu,
        "peak": peak,
        "ok": checked,
        "note": "also fetches the index page",
    }


def row(n: int, r: dict[str, object]) -> str:
    wall, cpu, peak = float(r["wall"]), float(r["cpu"]), float(r["peak"])  # type: ignore[arg-type]
    rate = n / wall
    return (
        f"| {r['tool']} | {n:,} | {r['ok']:,} | {rate:,.0f} | {rate / IDEAL:.0%} | "
        f"{cpu / n * 1000:.2f} | {peak:.0f} | {r['note']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--skip-linkchecker", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from loadgen import measure

    workdir = Path(tempfile.mkdtemp(prefix="bench-linkcheck-"))
    fast, fast_port = start_server(0.0)
    server, port = start_server(DELAY)
    try:
        ceiling = measure(fast_port, 128, 30000)
        at_delay = measure(port, CONCURRENCY, 10000)
        print(f"load on this machine: {os.getloadavg()[0]:.1f} (1-minute average)")
        print(
            f"server ceiling: {ceiling:,.0f} req/s with no delay (128 connections); "
            f"{at_delay:,.0f} req/s at {DELAY * 1000:.0f} ms with {CONCURRENCY} connections "
            f"(ideal {IDEAL:,.0f})\n"
        )
        print("| checker | URLs | ok | URLs/s | of ideal | CPU s / 1,000 URLs | peak MB | notes |")
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        for n in args.sizes:
            print(row(n, ours(port, n, get_only=False)), flush=True)
            print(row(n, ours(port, n, get_only=True)), flush=True)
            print(row(n, lychee(port, n, workdir)), flush=True)
            if not args.skip_linkchecker:
                try:
                    print(row(n, linkchecker(port, n, workdir)), flush=True)
                except TimedOut as exc:
                    print(f"| LinkChecker | {n:,} | – | – | – | – | – | {exc} |", flush=True)
    finally:
        for proc in (fast, server):
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
