"""Run every benchmark under bench/ in turn: `make bench`.

Each benchmark prints ratios against a reference measured in the same run;
figures are recorded in bench/README.md.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ["web", "memory", "linkcheck", "sourcetext", "transcripts", "admin"]


def main() -> int:
    failed = []
    for name in BENCHES:
        script = HERE / name / "run.py"
        print(f"\n=== bench/{name} ===", flush=True)
        result = subprocess.run([sys.executable, str(script), *sys.argv[1:]], cwd=HERE.parent)
        if result.returncode:
            failed.append(name)
    if failed:
        print(f"\nFailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
