"""How near each timed real-world kernel came to D304's window rule: per job, the timed case
whose unexplained window (the supervisor's clock minus the empty loop's cost) used the largest
share of what the rule allows (kgb.runner.speed), from report.json's `window_ms`/`loop_ms`.
The events' sum is taken as median x reps (the report keeps the median, not every time).

    python scripts/realworld/margins.py [--out-dir .realworld/out]"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kgb.runner.speed import WINDOW_FACTOR, WINDOW_SLACK_MS, WINDOW_SLACK_PER_CALL_MS  # noqa: E402


def share(timing: dict) -> float | None:
    """Unexplained window / allowed (1.0 is where D304 fires), or None without the evidence."""
    if timing.get("window_ms") is None or timing.get("loop_ms") is None:
        return None
    reps = timing["reps"]
    events = timing["median_ms"] * reps
    allowed = WINDOW_FACTOR * events + reps * WINDOW_SLACK_PER_CALL_MS + WINDOW_SLACK_MS
    return (timing["window_ms"] - timing["loop_ms"]) / allowed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", type=Path, default=ROOT / ".realworld" / "out")
    args = ap.parse_args()
    print("| submission | task | verdict | device | worst case | share of D304's allowance |")
    print("|---|---|---|---|---|---|")
    for report in sorted(args.out_dir.glob("*/report.json")):
        for job in json.loads(report.read_text())["jobs"]:
            shares = [(s, t["case"]) for t in job.get("timings") or ()
                      if (s := share(t)) is not None]
            if not shares:
                continue
            worst, case = max(shares)
            print(f"| {report.parent.name} | {job['task']} | {job['verdict']} | "
                  f"{job['device']} | {case} | {worst:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
