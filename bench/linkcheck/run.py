"""Benchmark: Glossary Desk's link checker against lychee and LinkChecker.

    .venv/bin/python bench/linkcheck/run.py [--sizes 2000 10000] [--repeat 3] [--linkchecker]
        [--skip-scale | --scale-only]

Everything runs on 127.0.0.1. A local server answers every request after
50 ms; each checker gets the same distinct URLs, a global concurrency of 64
and no per-host limits. Ideal throughput is 64 / 0.05 s = 1,280 URLs/s.
Each tool runs in its own process; CPU time and peak memory come from
wait4() on that process (ours: the timed section only for CPU, and the peak of
the checking process, Django and the models included; its database is migrated
and filled by another process first, as a worker's is by the deploy).

The machine is shared, so ours and lychee run interleaved, `--repeat` times
each (the order rotating every round), and the table shows medians with the
range. The targets (issue 12) are judged at the largest size against lychee's
medians, on ours in its default configuration (one GET per URL, as lychee
sends); `LINKCHECK_HEAD_FIRST=true` is measured alongside for comparison.

Then the scale run (`scale.py`): two Celery workers, 100,000 sources over
1,000 hosts with the per-host spacing on. The script exits 1 if any target
of either part is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


def ours(port: int, n: int, head_first: bool) -> dict[str, object]:
    args = [PY, str(HERE / "ours.py"), str(port), str(n)] + (["--head-first"] if head_first else [])
    _wall, _cpu, _peak, text = run_measured(args, cwd=ROOT)
    data = json.loads(text.strip().splitlines()[-1])
    peak = data["peak_kb"] / 1024  # its own: wait4() would count the preparing child
    ok = data["outcomes"].get("ok", 0)
    label = "ours, HEAD first (option)" if head_first else "ours, one GET per URL (default)"
    return {
        "tool": label,
        "wall": data["wall"],
        "cpu": data["cpu"],
        "peak": peak,
        "ok": ok,
        "note": f"claim {data['phases']['claim']:.2f} s, check and record "
        f"{data['phases']['check_and_record']:.2f} s; {data['fingerprinted']:,} fingerprints",
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


def summarise(n: int, runs: list[dict[str, object]]) -> dict[str, object]:
    """Medians (and ranges) of URLs/s, CPU ms per URL and peak MB over repeated runs."""
    rates = [n / float(r["wall"]) for r in runs]  # type: ignore[arg-type]
    cpus = [float(r["cpu"]) / n * 1000 for r in runs]  # type: ignore[arg-type]
    peaks = [float(r["peak"]) for r in runs]  # type: ignore[arg-type]
    return {
        "tool": runs[0]["tool"],
        "rate": statistics.median(rates),
        "rates": rates,
        "cpu": statistics.median(cpus),
        "cpus": cpus,
        "peak": statistics.median(peaks),
        "peaks": peaks,
        "ok": min(int(r["ok"]) for r in runs),  # type: ignore[call-overload]
        "note": runs[-1]["note"],
    }


def span(values: list[float], fmt: str) -> str:
    if len(values) < 2:
        return ""
    return f" ({format(min(values), fmt)}–{format(max(values), fmt)})"


def row(n: int, s: dict[str, object]) -> str:
    rate, cpu, peak = float(s["rate"]), float(s["cpu"]), float(s["peak"])  # type: ignore[arg-type]
    return (
        f"| {s['tool']} | {n:,} | {s['ok']:,} | {rate:,.0f}{span(s['rates'], ',.0f')} | "  # type: ignore[arg-type]
        f"{rate / IDEAL:.0%} | {cpu:.2f}{span(s['cpus'], '.2f')} | "  # type: ignore[arg-type]
        f"{peak:.0f}{span(s['peaks'], '.0f')} | {s['note']} |"  # type: ignore[arg-type]
    )


def verdict(ours: dict[str, object], lychee: dict[str, object]) -> tuple[bool, list[str]]:
    """The issue's targets for our checker, against lychee measured in the same run."""
    rate = float(ours["rate"]) / float(lychee["rate"])  # type: ignore[arg-type]
    cpu = float(ours["cpu"]) / float(lychee["cpu"])  # type: ignore[arg-type]
    peak = float(ours["peak"])  # type: ignore[arg-type]
    checks = [
        (rate >= 0.9, f"throughput {rate:.0%} of lychee's (target ≥ 90%)"),
        (cpu <= 2.0, f"CPU per URL {cpu:.2f}× lychee's (target ≤ 2×)"),
        (peak < 120, f"peak memory {peak:.0f} MB (target < 120 MB)"),
    ]
    return all(ok for ok, _ in checks), [
        ("met: " if ok else "MISSED: ") + text for ok, text in checks
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs per checker")
    parser.add_argument(
        "--linkchecker", action="store_true", help="also LinkChecker (it stalls here: 2 x 120 s)"
    )
    parser.add_argument("--skip-scale", action="store_true", help="throughput part only")
    parser.add_argument("--scale-only", action="store_true", help="the scale run only")
    args = parser.parse_args()
    throughput_met = True if args.scale_only else throughput(args)
    scale_met = True
    if not args.skip_scale:
        print("\n## scale run (bench/linkcheck/scale.py)\n", flush=True)
        scale_met = subprocess.run([PY, str(HERE / "scale.py")], cwd=ROOT).returncode == 0
    sys.exit(0 if throughput_met and scale_met else 1)


def throughput(args: argparse.Namespace) -> bool:
    """The throughput part against lychee; True when its targets are met."""
    sys.path.insert(0, str(HERE))
    from loadgen import measure  # type: ignore[import-not-found]  # beside this script

    workdir = Path(tempfile.mkdtemp(prefix="bench-linkcheck-"))
    fast, fast_port = start_server(0.0)
    server, port = start_server(DELAY)
    all_met = True
    try:
        ceiling = measure(fast_port, 128, 30000)
        at_delay = measure(port, CONCURRENCY, 10000)
        wide = measure(port, CONCURRENCY * 4, 20000)
        print(f"load on this machine: {os.getloadavg()[0]:.1f} (1-minute average)")
        print(
            f"server ceiling: {ceiling:,.0f} req/s with no delay (128 connections); "
            f"at {DELAY * 1000:.0f} ms: {at_delay:,.0f} req/s with {CONCURRENCY} connections "
            f"(ideal {IDEAL:,.0f}), {wide:,.0f} req/s with {CONCURRENCY * 4} "
            f"(ideal {IDEAL * 4:,.0f})\n"
        )
        print(
            f"medians of {args.repeat} interleaved runs (range in brackets)\n\n"
            "| checker | URLs | ok | URLs/s | of ideal | CPU ms / URL | peak MB | notes |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        for n in args.sizes:
            tools = [
                ("default", lambda n=n: ours(port, n, head_first=False)),
                ("head", lambda n=n: ours(port, n, head_first=True)),
                ("lychee", lambda n=n: lychee(port, n, workdir)),
            ]
            runs: dict[str, list[dict[str, object]]] = {name: [] for name, _ in tools}
            for round_ in range(args.repeat):
                shift = round_ % len(tools)
                for name, run in tools[shift:] + tools[:shift]:
                    runs[name].append(run())
            summary = {name: summarise(n, r) for name, r in runs.items()}
            for name, _ in tools:
                print(row(n, summary[name]), flush=True)
            if args.linkchecker:
                try:
                    print(row(n, summarise(n, [linkchecker(port, n, workdir)])), flush=True)
                except TimedOut as exc:
                    print(f"| LinkChecker | {n:,} | – | – | – | – | – | {exc} |", flush=True)
            if n == max(args.sizes):
                met, lines = verdict(summary["default"], summary["lychee"])
                all_met = all_met and met
                print(f"\ntargets at {n:,} URLs, ours (default) against lychee:")
                for line in lines:
                    print(f"  {line}")
                _, lines = verdict(summary["head"], summary["lychee"])
                print("  (the HEAD-first option: " + "; ".join(lines) + ")")
        print(f"\nload on this machine afterwards: {os.getloadavg()[0]:.1f}")
    finally:
        for proc in (fast, server):
            proc.terminate()
            proc.wait(10)
    return all_met


if __name__ == "__main__":
    main()
