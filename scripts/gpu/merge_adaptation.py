"""One adaptation table from several `kgb suite check` runs of the same suite on one device
model (a check split into runs, e.g. across device calls): each task's entry comes from the
first report that finished it. Usage: python scripts/gpu/merge_adaptation.py REPORT.json ...
(prints markdown; the runs' seeds are named under the table's header)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kgb.metrics.suite import by_category, rates  # noqa: E402
from kgb.suite.check import adaptation_table  # noqa: E402


def merged(paths: list[Path]) -> dict:
    reports = [json.loads(p.read_text()) for p in paths]
    devices = {r["environment"].get("device_name") for r in reports}
    if len(devices) != 1:
        raise SystemExit(f"the reports come from different devices: {sorted(map(str, devices))}")
    jobs: dict[str, dict] = {}
    for report in reports:
        for job in report["jobs"]:
            if job["verdict"] != "missing" and job["task"] not in jobs:
                jobs[job["task"]] = job
    ordered = [jobs[t] for t in sorted(jobs)]
    first = reports[0]
    summary = dict(first["summary"], rates=rates(ordered), by_category=by_category(ordered))
    return dict(first, jobs=ordered, summary=summary,
                seed=", ".join(str(r["seed"]) for r in reports))


if __name__ == "__main__":
    print(adaptation_table(merged([Path(p) for p in sys.argv[1:]])), end="")
