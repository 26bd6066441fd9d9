"""From the facts of one job to its verdict — a pure function, so a saved job folder can be
re-graded without running anything (SWE-bench's habit).

Precedence, strongest first: missing, rejected (static), timeout, crashed (no result),
compile_error, rejected (runtime rule), crashed (a case raised), incorrect, unverified (some case
could not be judged by kgb's infrastructure), passed (at least one case checked and every
checked case passed), unverified (nothing could be checked, e.g. the CPU interpreter's limits).
A case the interpreter cannot judge is `not_checkable`: never incorrect, never passed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgb.anticheat.registry import Finding
from kgb.runner.interpreter import InterpreterLimits
from kgb.sandbox.base import ExecResult

VERDICTS = ("passed", "rejected", "incorrect", "compile_error", "crashed", "timeout", "missing",
            "unverified")


@dataclass(frozen=True)
class CaseOutcome:
    id: str
    status: str  # passed | failed | not_checkable | raised | violation | not_run | infra
    max_abs: float | None = None
    rel_l2: float | None = None
    message: str = ""
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "max_abs_err": self.max_abs,
                "rel_l2_err": self.rel_l2, "message": self.message, "rule": self.rule}


@dataclass(frozen=True)
class Verdict:
    verdict: str
    rule: str | None = None
    layer: int | None = None
    message: str = ""
    location: str = ""
    cases: tuple[CaseOutcome, ...] = field(default=())

    def coverage(self) -> dict[str, int]:
        counts = {"cases": len(self.cases), "checked": 0, "passed": 0, "not_checkable": 0}
        for c in self.cases:
            counts["checked"] += c.status in ("passed", "failed")
            counts["passed"] += c.status == "passed"
            counts["not_checkable"] += c.status == "not_checkable"
        return counts


def decide(*, has_kernel: bool, findings: list[Finding], execution: ExecResult | None,
           result: dict | None, judge: dict | None, limits: InterpreterLimits | None,
           timeout_s: float, planned: dict[str, str | None]) -> Verdict:
    """`planned` maps every case id of the job (trusted: from the plan) to the reason it was
    skipped on this device, or None. result.json comes from the untrusted worker: a case it
    omits or mislabels is never counted as passed."""
    if not has_kernel:
        return Verdict("missing", message="the submission has no kernel for this task")
    if findings:
        first = findings[0]
        return Verdict("rejected", first.rule, 1, first.message, first.location())
    if execution is not None and execution.timed_out:
        return Verdict("timeout", message=f"the job ran past its {timeout_s:g} s wall-time limit")
    if not isinstance(result, dict) or not isinstance(result.get("cases"), list):
        return Verdict("crashed", message=_death_message(execution))
    if result.get("error_kind") == "compile":
        return Verdict("compile_error", message=str(result.get("error")))
    if result.get("error_kind") == "crash":
        return Verdict("crashed", message=str(result.get("error")))

    judged = {c.get("id"): c for c in (judge or {}).get("cases", []) if isinstance(c, dict)}
    claimed = {c.get("id"): c for c in result["cases"] if isinstance(c, dict)}
    cases = tuple(_case_outcome(cid, skip, claimed.get(cid, {}), judged.get(cid), limits)
                  for cid, skip in planned.items())
    for status, verdict in (("violation", "rejected"), ("raised", None), ("failed", "incorrect"),
                            ("infra", "unverified"), ("not_run", "unverified")):
        hit = next((c for c in cases if c.status == status), None)
        if hit is None:
            continue
        if status == "violation":
            return Verdict("rejected", hit.rule, 2, f"{hit.id}: {hit.message}", cases=cases)
        if status == "raised":
            kind = "compile_error" if hit.rule == "compile" else "crashed"
            return Verdict(kind, message=f"{hit.id}: {hit.message}", cases=cases)
        return Verdict(verdict, message=f"{hit.id}: {hit.message or status}", cases=cases)
    if any(c.status == "passed" for c in cases):
        skipped = sum(c.status == "not_checkable" for c in cases)
        note = f"{skipped} case(s) not checkable on this device" if skipped else ""
        return Verdict("passed", message=note, cases=cases)
    reasons = sorted({c.message for c in cases if c.status == "not_checkable"})
    return Verdict("unverified", message="no case could be checked: " + "; ".join(reasons),
                   cases=cases)


def _case_outcome(cid: str, skip: str | None, record: dict, judged: dict | None,
                  limits: InterpreterLimits | None) -> CaseOutcome:
    if skip is not None:
        return CaseOutcome(cid, "not_checkable", message=skip)
    status = record.get("status")
    if status == "violation":
        return CaseOutcome(cid, "violation", message=str(record.get("error")),
                           rule=str(record.get("rule")))
    if status == "raised":
        excuse = limits.excuse_failure("raised") if limits else None
        if excuse:
            return CaseOutcome(cid, "not_checkable", message=excuse)
        return CaseOutcome(cid, "raised", message=str(record.get("error")),
                           rule="compile" if record.get("error_type") == "compile" else None)
    if judged is None or judged.get("status") == "not_run":
        return CaseOutcome(cid, "not_run", message="the reference worker did not judge this case")
    if judged.get("status") == "infra":
        return CaseOutcome(cid, "infra", message=str(judged.get("message")))
    if judged.get("status") == "pass":
        return CaseOutcome(cid, "passed", judged.get("max_abs"), judged.get("rel_l2"))
    excuse = limits.excuse_failure("mismatch") if limits else None
    if excuse:
        return CaseOutcome(cid, "not_checkable", judged.get("max_abs"), judged.get("rel_l2"),
                           f"{excuse} (it did not match)")
    return CaseOutcome(cid, "failed", judged.get("max_abs"), judged.get("rel_l2"),
                       str(judged.get("message")))


def _death_message(execution: ExecResult | None) -> str:
    if execution is None:
        return "the worker did not run"
    tail = [line for line in execution.stderr.strip().splitlines() if line.strip()][-1:]
    code = execution.returncode
    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return f"the worker died without a result ({how})" + (f": {tail[0][:300]}" if tail else "")
