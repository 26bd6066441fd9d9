"""The row of a task the submission has no kernel for.

It is computed from the task's id and category alone: no job, no job folder, no file read or
written (design.md, "Scale and throughput": tasks not submitted cost nothing beyond their row).
It goes through the same `job_entry` as every job, so its fields are those of any row."""

from __future__ import annotations

import functools
import json
from typing import Any

from kgb import protocol as P
from kgb.report.json_report import job_entry
from kgb.runner.verdict import missing_verdict


def missing_entry(task_id: str, category: str, device: str) -> dict[str, Any]:
    """A fresh row (nothing in it shared with another report's), from the row's JSON kept
    per process: a batch of 32 one-kernel submissions writes 32 x 462 such rows (run 25's
    bench: the seconds after its last job)."""
    return json.loads(_missing_json(task_id, category, device))


@functools.lru_cache(maxsize=4096)
def _missing_json(task_id: str, category: str, device: str) -> str:
    plan = P.PlanRecord(task_id=task_id, category=category, kernel_file=None, slot=device,
                        timeout_s=0.0, cases=(), timing=False)
    record = P.JobRecord(missing_verdict(), P.JobFacts(log_dir="", device=device))
    return json.dumps(dict(job_entry(plan, record), log_dir=None))  # no folder: nothing ran
