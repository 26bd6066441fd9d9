"""How fast is the static layer? Lints every honest fixture and suite solution N times (in this
process, after one warm-up pass) and prints files/s and milliseconds per 100 files.

    .venv/bin/python scripts/bench_lint.py [-n 20] [--cheats]

Layer 1 runs on every kernel before any GPU time, so it has to stay far below a second per
hundred files; the libcst parse is about half of the time."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgb.anticheat.static import analyze  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--repeat", type=int, default=20, help="passes over the corpus")
    parser.add_argument("--cheats", action="store_true", help="also lint the cheating fixtures")
    args = parser.parse_args()

    fixtures = ROOT / "tests" / "fixtures" / "static"
    paths = sorted((fixtures / "honest").glob("*.py")) + sorted(ROOT.glob("tasks/*/*/solution.py"))
    if args.cheats:
        paths += sorted((fixtures / "cheat").glob("*.py"))
    sources = [(str(p), p.read_text()) for p in paths]
    lines = sum(s.count("\n") for _, s in sources)

    for name, source in sources:  # warm-up: imports, caches
        analyze(source, name, "run")
    per_pass = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for name, source in sources:
            analyze(source, name, "run")
        per_pass.append(time.perf_counter() - start)

    best, median = min(per_pass), statistics.median(per_pass)
    print(f"{len(sources)} files ({lines} lines), {args.repeat} passes")
    for label, seconds in (("median", median), ("best", best)):
        print(f"{label + ':':7} {len(sources) / seconds:8.1f} files/s  "
              f"{seconds / len(sources) * 1e5:7.1f} ms per 100 files")


if __name__ == "__main__":
    main()
