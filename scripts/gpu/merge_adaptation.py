"""One adaptation table from several `kgb suite check` runs of the same suite on one device
model (a check split into runs, e.g. across device calls): each task's entry comes from the
first report that finished it. Usage: python scripts/gpu/merge_adaptation.py REPORT.json ...
(prints markdown; the runs' seeds are named under the table's header).

`mixed=True` (suite_cuda.sh's MIXED=1) joins runs on several GPU models, for a correctness
check only: every report must be `--timing off` (a speedup or a fraction of peak is one
model's), and the table then names the model that gave each row (docs/decisions.md, "A
correctness check on two models of one architecture")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kgb.metrics.suite import by_category, rates  # noqa: E402
from kgb.suite.check import adaptation_table  # noqa: E402


def merged(paths: list[Path], mixed: bool = False) -> dict:
    reports = [json.loads(p.read_text()) for p in paths]
    devices = list(dict.fromkeys(str(r["environment"].get("device_name")) for r in reports))
    if len(devices) != 1 and not mixed:
        raise SystemExit(f"the reports come from different devices: {sorted(devices)} "
                         f"(MIXED=1 joins a correctness check, --timing off, naming each row's)")
    timed = [r for r in reports if r["environment"].get("timing") not in (False, "off")]
    if len(devices) != 1 and timed:
        raise SystemExit("MIXED=1 joins correctness checks only: a report timed its kernels "
                         "(its speedups are one GPU model's); merge it with its own model's")
    jobs: dict[str, dict] = {}
    for report in reports:
        for job in report["jobs"]:
            if job["verdict"] != "missing" and job["task"] not in jobs:
                jobs[job["task"]] = job if len(devices) == 1 else dict(
                    job, device_name=report["environment"].get("device_name"))
    ordered = [jobs[t] for t in sorted(jobs)]
    first = reports[0]
    summary = dict(first["summary"], rates=rates(ordered), by_category=by_category(ordered))
    environment = dict(first["environment"], device_name=" and ".join(sorted(devices)))
    return dict(first, jobs=ordered, summary=summary, environment=environment,
                seed=", ".join(str(r["seed"]) for r in reports))


if __name__ == "__main__":
    print(adaptation_table(merged([Path(p) for p in sys.argv[1:]])), end="")
