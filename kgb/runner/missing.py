"""The row of a task the submission has no kernel for.

It is computed from the task's id and category alone: no job, no job folder, no file read or
written (design.md, "Scale and throughput": tasks not submitted cost nothing beyond their row).
It goes through the same `job_entry` as every job, so its fields are those of any row."""

from __future__ import annotations

from typing import Any

from kgb import protocol as P
from kgb.report.json_report import job_entry
from kgb.runner.verdict import missing_verdict


def missing_entry(task_id: str, category: str, device: str) -> dict[str, Any]:
    plan = P.PlanRecord(task_id=task_id, category=category, kernel_file=None, slot=device,
                        timeout_s=0.0, cases=(), timing=False)
    record = P.JobRecord(missing_verdict(), P.JobFacts(log_dir="", device=device))
    return dict(job_entry(plan, record), log_dir=None)  # no folder: nothing ran
