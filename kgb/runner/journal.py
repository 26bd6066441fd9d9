"""The run's journal, so a stopped `kgb verify` resumes where it stopped (design: Scale).

`OUT/run.json` records the seed and a digest of everything a verdict depends on: each job's
task files, kernel bytes, entry and planned cases, plus device, sandbox backend and limits.
Each finished job's `verdict.json` (written last, atomically) is its journal entry. `--resume`
reuses those entries only when the digest of the new plan equals the recorded one; anything
else is a different run and is refused, never silently mixed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kgb import protocol as P
from kgb.errors import BadInput
from kgb.jsonfiles import write_json_atomic
from kgb.runner.plan import Job

RUN_FILE = "run.json"


@dataclass(frozen=True)
class RunRecord:
    seed: int
    device: str
    sandbox: str
    plan_digest: str


def plan_digest(jobs: list[Job], device: str, sandbox: str, limits: Any,
                missing: list[str] | tuple[str, ...] = ()) -> str:
    """`missing`: the ids of the report's rows without a kernel (nothing of them is read)."""
    h = hashlib.sha256(json.dumps({"device": device, "sandbox": sandbox,
                                   "limits": asdict(limits), "missing": list(missing)},
                                  sort_keys=True).encode())
    for job in jobs:
        h.update(job.task.id.encode())
        for path in (job.task.folder / "task.toml", job.task.inputs_path,
                     job.task.reference_path):
            h.update(hashlib.sha256(path.read_bytes()).digest())
        kernel = job.kernel.path.read_bytes() if job.kernel else b"<missing>"
        h.update(hashlib.sha256(kernel).digest() + job.entry.encode())
        h.update(json.dumps([c.to_dict() for c in job.cases], sort_keys=True).encode())
    return h.hexdigest()


def write_record(out_dir: Path, record: RunRecord) -> None:
    write_json_atomic(out_dir / RUN_FILE, asdict(record), indent=1)


def resume_mismatch(out_dir: Path) -> BadInput:
    return BadInput(f"--resume: the submission, suite, device, sandbox or limits differ from "
                    f"the run in {out_dir}; resume with the same ones or use a new --out")


def finished(job_dir: Path) -> P.JobRecord | None:
    """A finished job's record from its journal entry, or None — also where the plan.json the
    report is built from is missing or unreadable (an OUT carried to another machine without
    it): the job runs again, where the resumed run used to end in a traceback."""
    try:
        record = P.read(P.JobRecord, job_dir / P.VERDICT_FILE, 64 << 20)
        read_plan(job_dir)
    except P.ProtocolError:
        return None
    return record


def write_finished(job_dir: Path, record: P.JobRecord) -> None:
    write_json_atomic(job_dir / P.VERDICT_FILE, P.to_json(record), indent=1)


def read_record(out_dir: Path) -> RunRecord:
    """The record of the run being resumed; bad input when there is none to read."""
    path = out_dir / RUN_FILE
    try:
        return RunRecord(**json.loads(path.read_text()))
    except FileNotFoundError:
        raise BadInput(f"--resume: {path} does not exist; run without --resume to start "
                       f"a new run") from None
    except (OSError, ValueError, TypeError, AttributeError):
        raise BadInput(f"--resume: {path} is unreadable; run without --resume to start "
                       f"a new run") from None


def read_plan(job_dir: Path) -> P.PlanRecord:
    from kgb.runner.grade import HOST_FILE_CAP, PLAN_FILE

    return P.read(P.PlanRecord, job_dir / PLAN_FILE, HOST_FILE_CAP)
