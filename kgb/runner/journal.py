"""The run's journal, so a stopped `kgb verify` resumes where it stopped (design: Scale).

`OUT/run.json` records the seed and a digest of everything a verdict depends on: each job's
task files, kernel bytes, entry and planned cases, plus device, sandbox backend and limits.
Each finished job's `verdict.json` (written last, atomically) is its journal entry. `--resume`
reuses those entries only when the digest of the new plan equals the recorded one; anything
else is a different run and is refused, never silently mixed."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kgb.errors import BadInput
from kgb.runner.plan import Job
from kgb.runner.verdict import VERDICTS, CaseOutcome, Verdict

RUN_FILE = "run.json"
VERDICT_FILE = "verdict.json"


@dataclass(frozen=True)
class RunRecord:
    seed: int
    device: str
    sandbox: str
    plan_digest: str


def plan_digest(jobs: list[Job], device: str, sandbox: str, limits: Any) -> str:
    h = hashlib.sha256(json.dumps({"device": device, "sandbox": sandbox,
                                   "limits": asdict(limits)}, sort_keys=True).encode())
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
    _atomic_write(out_dir / RUN_FILE, asdict(record))


def resume_mismatch(out_dir: Path) -> BadInput:
    return BadInput(f"--resume: the submission, suite, device, sandbox or limits differ from "
                    f"the run in {out_dir}; resume with the same ones or use a new --out")


def finished(job_dir: Path) -> tuple[Verdict, dict[str, Any]] | None:
    """A finished job's verdict and report facts from its journal entry, or None."""
    try:
        data = json.loads((job_dir / VERDICT_FILE).read_text())
        cases = tuple(CaseOutcome(id=c["id"], status=c["status"], max_abs=c["max_abs_err"],
                                  rel_l2=c["rel_l2_err"], message=c["message"], rule=c["rule"])
                      for c in data.pop("cases"))
        verdict = Verdict(data.pop("verdict"), data.pop("rule"), data.pop("layer"),
                          data.pop("message"), data.pop("location"), cases)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return (verdict, data) if verdict.verdict in VERDICTS else None


def write_finished(job_dir: Path, verdict: Verdict, facts: dict[str, Any]) -> None:
    _atomic_write(job_dir / VERDICT_FILE, {
        "verdict": verdict.verdict, "rule": verdict.rule, "layer": verdict.layer,
        "message": verdict.message, "location": verdict.location,
        "cases": [c.to_dict() for c in verdict.cases], **facts})


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


def _atomic_write(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)
