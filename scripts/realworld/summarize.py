"""Print the docs/realworld.md table from the adapter table and the kgb reports under
.realworld/out/<submission>/report.json (a submission not verified yet shows `not run`).

    python scripts/realworld/summarize.py [--out-dir .realworld/out]"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from adapters import ADAPTERS, PACKAGES  # noqa: E402
from build import submission_name  # noqa: E402


def verdicts(out_dir: Path) -> dict[tuple[str, str], dict]:
    found = {}
    # a run still in progress has no report.json yet: its finished jobs' verdict.json
    for vfile in sorted(out_dir.glob("*/jobs/*/verdict.json")):
        try:
            v = json.loads(vfile.read_text())["verdict"]
        except (ValueError, KeyError):
            continue
        if v.get("verdict") in (None, "missing"):
            continue
        cases = v.get("cases") or []
        passed = sum(1 for c in cases if c.get("status") == "passed")
        found[(vfile.parents[2].name, vfile.parent.name)] = {
            "verdict": v["verdict"], "rule": v.get("rule"), "message": v.get("message") or "",
            "coverage": {"cases": len(cases), "passed": passed}}
    for report in sorted(out_dir.glob("*/report.json")):
        data = json.loads(report.read_text())
        for job in data["jobs"]:
            if job["verdict"] != "missing":
                found[(report.parent.name, job["task"])] = job
    return found


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", type=Path, default=HERE.parents[1] / ".realworld" / "out")
    args = ap.parse_args()
    found = verdicts(args.out_dir)
    counts: Counter = Counter()
    print("| package | version | source file | kernel(s) | task | CPU verdict | notes |")
    print("|---|---|---|---|---|---|---|")
    for ad in ADAPTERS:
        pkg = PACKAGES[ad.package]
        names = ", ".join(f"`{n.split('!')[0]}`" for n in ad.kernels if not n.isupper())
        if ad.unfit:
            verdict = "not built (fits no task)"
            note = ad.unfit
        else:
            job = found.get((submission_name(ad), ad.task))
            if job is None:
                verdict = "not run"
            else:
                verdict = job["verdict"] + (f" {job['rule']}" if job.get("rule") else "")
                cov = job.get("coverage") or {}
                if cov.get("cases"):
                    verdict += f" ({cov['passed']}/{cov['cases']})"
                if job["verdict"] != "passed" and job.get("message"):
                    verdict += f": {job['message'][:160]}"
            note = ad.notes
            counts[(ad.package, job["verdict"] if job else "not run")] += 1
        sub = submission_name(ad)
        print(f"| {ad.package}{'' if sub == ad.package else f' ({sub})'} | {pkg.version} | "
              f"`{ad.source}` | {names} | `{ad.task}` | {cell(verdict)} | {cell(note)} |")
    print()
    print("| package | kernels built | " + " | ".join(sorted({v for _, v in counts})) + " |")
    verdict_names = sorted({v for _, v in counts})
    print("|---|---|" + "---|" * len(verdict_names))
    for name in PACKAGES:
        row = [counts[(name, v)] for v in verdict_names]
        if sum(row):
            print(f"| {name} | {sum(row)} | " + " | ".join(map(str, row)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
