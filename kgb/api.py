"""kgb from Python, for generator loops (generate → verify → repair): the same pipeline as
`kgb verify` — the static layer, the sandbox, the trusted judge, layers 2 and 3, timing — with no
shortcut, returning typed results instead of printing a table.

    import kgb

    result = kgb.verify_kernel("normalization.rms_norm", source, out="runs/attempt-3")
    if result.verdict != "passed":
        next_prompt = result.feedback   # what failed, where, how to fix it

    report = kgb.verify("submission/", out="runs/sub")   # a whole submission
    print(report.rates["correct_rate"], [j.verdict for j in report.jobs])

Errors a caller can cause raise `kgb.errors.BadInput` (the CLI's exit 2); kgb's own failures
raise `kgb.errors.InfraError` (exit 3); a kernel's failure is never an exception, it is a
verdict. docs/api.md has a whole loop."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_TASKS = Path(__file__).resolve().parent.parent / "tasks"


@dataclass(frozen=True)
class JobResult:
    """One kernel's outcome: the verdict and what a loop feeds back to its model."""

    task: str
    verdict: str  # passed | rejected | incorrect | compile_error | crashed | timeout | ...
    rule: str | None  # the anti-cheat rule, for `rejected`
    message: str
    location: str | None
    feedback: str  # plain sentences: what failed, where, what the spec demands
    speedup_eager: float | None
    speedup_compile: float | None
    entry: dict[str, Any]  # the report's whole job entry (cases, timings, findings ...)
    # "judged": `verdict` is kgb's verdict on the kernel. "infra_error" (kgb.Verifier and
    # `kgb serve` only): kgb or the machine failed, or the request's deadline passed — nothing
    # is known about the kernel; `verdict` is "infra_error" too and a trainer drops the sample.
    status: str = "judged"

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    @property
    def infra_failure(self) -> bool:
        return self.status == INFRA_ERROR

    @property
    def reward_ready(self) -> dict[str, Any]:
        """What an RL trainer needs: correct, the speedup over eager (None on the CPU and for
        failing kernels) and whether the sample must be dropped (never scored 0)."""
        return {"correct": self.passed, "speedup": self.speedup_eager if self.passed else None,
                "infra_failure": self.infra_failure}

    def as_json(self) -> dict[str, Any]:
        """The typed verdict JSON `kgb serve` answers (docs/api.md), without `entry`."""
        return {"status": self.status, "task": self.task, "verdict": self.verdict,
                "rule": self.rule, "message": self.message, "location": self.location,
                "feedback": self.feedback,
                "speedups": {"eager": self.speedup_eager, "compile": self.speedup_compile},
                "reward_ready": self.reward_ready, "infra_failure": self.infra_failure}


INFRA_ERROR = "infra_error"


def infra_result(task: str, message: str) -> JobResult:
    """A job kgb could not judge (its own failure, a dead judge, a passed deadline)."""
    return JobResult(task=task, verdict=INFRA_ERROR, rule=None, message=message, location=None,
                     feedback=f"kgb could not judge this kernel ({message}); not the kernel's "
                              "fault: drop the sample or retry", speedup_eager=None,
                     speedup_compile=None, entry={}, status=INFRA_ERROR)


@dataclass(frozen=True)
class Report:
    jobs: tuple[JobResult, ...]
    rates: dict[str, Any]  # compile/correct rates, fast_p, geomean speedups (kgb.metrics)
    seed: int
    out_dir: Path
    raw: dict[str, Any]  # report.json as written

    def job(self, task: str) -> JobResult:
        return next(j for j in self.jobs if j.task == task)


def _job(entry: dict[str, Any]) -> JobResult:
    return JobResult(task=entry["task"], verdict=entry["verdict"], rule=entry.get("rule"),
                     message=entry.get("message") or "", location=entry.get("location"),
                     feedback=entry.get("feedback") or "",
                     speedup_eager=entry.get("speedup_eager"),
                     speedup_compile=entry.get("speedup_compile"), entry=entry)


def verify(submission: str | Path, *, out: str | Path, tasks: str | Path = DEFAULT_TASKS,
           device: str = "auto", sandbox: str = "auto", only: list[str] | None = None,
           timeout_s: float | None = None, seed: int | None = None, jobs: int = 1,
           force: bool = True, include_missing: bool = False) -> Report:
    """`kgb verify SUBMISSION --out OUT` (with --force by default: a loop reuses its folders).
    Only the tasks the submission has kernels for are run unless `include_missing`."""
    from kgb.runner.verify import VerifyOptions, run_verify

    options = VerifyOptions(submission=Path(submission), tasks_dir=Path(tasks),
                            out_dir=Path(out), device=device, sandbox=sandbox,
                            timeout_s=timeout_s, seed=seed, jobs=jobs, force=force,
                            only=tuple(only) if only else None,
                            only_submitted=not include_missing)
    raw = run_verify(options, quiet=True)
    return Report(tuple(_job(j) for j in raw["jobs"]), raw["summary"]["rates"], raw["seed"],
                  Path(out), raw)


def verify_kernel(task: str, source: str, *, out: str | Path | None = None,
                  tasks: str | Path = DEFAULT_TASKS, device: str = "auto",
                  sandbox: str = "auto", timeout_s: float | None = None,
                  seed: int | None = None) -> JobResult:
    """One kernel's source for one task, in, its verdict out: a one-kernel submission through
    the whole pipeline. `out`: where the run folder goes (a temporary one by default, removed
    afterwards — pass one to keep the evidence)."""
    from kgb.suite.corpus import write_submission

    def run(folder: Path) -> JobResult:
        sub = write_submission(folder / "submission", {task: source}, name=f"kernel-{task}")
        report = verify(sub, out=folder / "run", tasks=tasks, device=device, sandbox=sandbox,
                        only=[task], timeout_s=timeout_s, seed=seed)
        return report.job(task)

    if out is not None:
        return run(Path(out))
    with tempfile.TemporaryDirectory(prefix="kgb-kernel-") as folder:
        return run(Path(folder))
