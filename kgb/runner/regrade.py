"""`kgb report OUT --regrade`: every verdict recomputed from the saved job folders, without
running a kernel, a worker or a judge — the same grading function a run uses
(kgb.runner.grade), so a run and its regrade give the same report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgb import protocol as P
from kgb.errors import BadInput
from kgb.report.files import write_human_reports
from kgb.report.json_report import build_report, cost_for, job_entry, read_report, write_report
from kgb.runner.grade import grade
from kgb.runner.journal import read_plan
from kgb.runner.missing import missing_entry

HEADER_KEYS = ("environment", "limits", "seed", "submission", "manifest")


def regrade(out_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """The regraded report (also written to OUT/report.json) and the tasks whose verdict
    changed."""
    old = read_report(out_dir)
    entries, changed = [], []
    for job in old["jobs"]:
        job_dir = out_dir / "jobs" / str(job.get("task"))
        if job.get("verdict") == P.Verdict.MISSING.value and not job_dir.exists():
            # A row without a kernel never had a folder (kgb.runner.missing): nothing to grade.
            entries.append(missing_entry(str(job.get("task")), str(job.get("category")),
                                         str(job.get("device"))))
            continue
        try:
            plan = read_plan(job_dir)
            record = grade(job_dir, out_dir)
        except P.ProtocolError as exc:
            raise BadInput(f"{job_dir}: cannot be regraded ({exc}); the folder is incomplete "
                           f"or from another kgb version") from None
        entry = job_entry(plan, record)
        entries.append(entry)
        if entry["verdict"] != job.get("verdict"):
            changed.append(plan.task_id)
    header = {k: old[k] for k in HEADER_KEYS if k in old}
    token_log = out_dir / "submission" / "tokens.jsonl"
    pricing = (old.get("cost") or {}).get("inputs", {}).get("pricing")
    cost = cost_for(token_log if token_log.is_file() and "cost" in old else None,
                    Path(pricing) if pricing and Path(pricing).is_file() else None,
                    header.get("manifest") or {}, entries)
    report = build_report(header, entries, complete=bool(old["complete"]), cost=cost)
    write_report(report, out_dir)
    write_human_reports(report, out_dir)
    return report, changed
