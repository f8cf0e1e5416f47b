"""Run every benchmark under bench/ in turn: `make bench`; `--cold` (`make bench-cold`) runs
only bench/web/cold.py, a glossary served the moment it was generated.

Each benchmark prints ratios against a reference measured in the same run;
figures are recorded in bench/README.md.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ["web", "memory", "linkcheck", "sourcetext", "transcripts", "admin"]


def main() -> int:
    if "--cold" in sys.argv[1:]:
        # Only the cold path: a new database, generated, served at once (bench/web/cold.py).
        rest = [arg for arg in sys.argv[1:] if arg != "--cold"]
        script = HERE / "web" / "cold.py"
        return subprocess.run([sys.executable, str(script), *rest], cwd=HERE.parent).returncode
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
