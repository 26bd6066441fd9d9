"""From the files of one job to its verdict — a pure function, so a saved job folder can be
re-graded without running anything (SWE-bench's habit).

Precedence, strongest first: missing, rejected (static), timeout, rejected (a tampered result
file), crashed (no result), compile_error, rejected (a runtime rule on some case), crashed (a
case raised), incorrect, unverified (some case could not be judged by kgb's infrastructure),
passed (every planned case judged and passed), unverified (some case could not be checked on
this device, with the count and the reasons). A case the interpreter cannot judge is
`not_checkable` — only for the limitation that produced that case's failure — and is never
incorrect and never passed.

The worker's result file is evidence from the untrusted process: a case it omits, mislabels or
claims to have skipped is never counted as passed, and every rule here reads evidence that the
judged outputs back up (design rule 0)."""

from __future__ import annotations

from kgb import protocol as P
from kgb.anticheat import runtime_rules as RR
from kgb.anticheat.registry import Rule, get_rule
from kgb.bench.channel import STAGE_MARK
from kgb.protocol import CaseStatus as S
from kgb.protocol import Verdict as V
from kgb.runner.interpreter import InterpreterLimits

Result = P.WorkerResult | P.ProtocolError | None


def timeout_message(plan: P.PlanRecord, progress: P.Progress | None,
                    execution: P.ExecRecord | None = None) -> str:
    """Which budget ran out, and in which stage. Start-up and compile times are the
    supervisor's (its own clock) where it timed them, and the stage is the last the worker
    announced on the supervisor's channel (exec.json's marks, in step with the worker); the
    worker's progress file only says how far it got."""
    budgets = (f"{plan.timeout_s:g} s to run plus {plan.compile_budget_s:g} s to start up, "
               f"compile and autotune")
    compile_s = execution.compile_s if execution is not None else None
    if compile_s is None and progress is not None:
        compile_s = progress.compile_s
    if compile_s is None:
        return f"the job ran past its time limits ({budgets}) before reporting progress"
    startup_s = execution.startup_s if execution is not None else None
    waited_s = execution.waited_s if execution is not None else None
    compiling = compile_s + (startup_s or 0.0) + (waited_s or 0.0) >= \
        plan.compile_budget_s - 0.5
    # Most of the credit went on waiting for a CPU (other load on the machine): that is what ran
    # the budget out, not compiling (issue 28: the message names the real stage).
    waiting = compiling and (waited_s or 0.0) > compile_s + (startup_s or 0.0)
    spent = "start-up/compile/autotune" if compiling else "run-time"
    marks = [m.label[len(STAGE_MARK):] for m in (execution.marks if execution else ())
             if m.label.startswith(STAGE_MARK)]
    stage = marks[-1] if marks else progress.stage if progress is not None else None
    took = (f"start-up took {startup_s:.0f} s, " if startup_s is not None else "") + \
        f"compiling and autotuning took {compile_s:.0f} s" + \
        (f", waiting for a CPU {waited_s:.0f} s" if waited_s else "")
    done = f", {progress.cases_done} case(s) done" if progress is not None else ""
    where = f", stage {P.cut(stage, 20)}" if stage else ""
    fix = ("--limit compile_case=SECONDS (per case) or compile=SECONDS (the least per job) "
           "raises it" if compiling else
           "--timeout SECONDS raises it")
    if waiting:
        spent += " budget, spent mostly waiting for a CPU rather than compiling"
        fix = ("the machine was busy (other processes, or more --jobs than free cores): run "
               "fewer jobs at once or on a quieter machine; --limit compile=SECONDS raises it")
    else:
        spent += " budget"
    return f"the job ran past its {spent} ({budgets}; {took}{done}{where}); {fix}"


def missing_verdict() -> P.VerdictRecord:
    return P.VerdictRecord(V.MISSING, message="the submission has no kernel for this task")


def decide(plan: P.PlanRecord, execution: P.ExecRecord | None, result: Result,
           judge: P.JudgeResult | None, limits: InterpreterLimits | None,
           progress: P.Progress | None = None,
           judge_error: str | None = None,
           judge_kind: P.ErrorKind | None = None) -> P.VerdictRecord:
    """The job's verdict; `judge_error`: the last line of judge.log when the reference worker
    failed (no judge.json), named in an unverified verdict instead of a bare "not judged";
    `judge_kind`: the kind the judge itself named for its failure (gpu_memory)."""
    if plan.kernel_file is None:
        return missing_verdict()
    if plan.findings:
        first = plan.findings[0]
        if first.rule == "S100" and first.message.startswith("syntax error"):
            # Not Python at all: an honest mistake to fix at that line, not a cheat.
            return P.VerdictRecord(V.COMPILE_ERROR, message=f"{first.message} (the file is not "
                                   "valid Python)", location=first.location())
        more = len(plan.findings) - 1
        message = first.message + (f" (and {more} more finding{'s' * (more > 1)}: see "
                                   "`findings`)" if more else "")
        return P.VerdictRecord(V.REJECTED, first.rule, 1, message, first.location())
    if execution is not None and execution.timed_out:
        return P.VerdictRecord(V.TIMEOUT, message=timeout_message(plan, progress, execution))
    if isinstance(result, P.ProtocolError):
        return _rejected(RR.RESULT_FILE_INVALID, f"result.json: {P.cut(str(result), 300)}")
    if result is None:
        return P.VerdictRecord(V.CRASHED, message=_death_message(execution))
    if result.error_kind == P.ErrorKind.COMPILE:
        return P.VerdictRecord(V.COMPILE_ERROR, message=P.cut(result.error, 600))
    if result.error_kind is not None:
        return P.VerdictRecord(V.CRASHED, message=P.cut(result.error, 600),
                               failure=_gpu_memory(result.error_kind))

    judged = {c.id: c for c in (judge.cases if judge else ())}
    claimed = {c.id: c for c in result.cases}
    cases = tuple(case_outcome(spec, claimed.get(spec.id), judged.get(spec.id), limits,
                               plan.glue) for spec in plan.cases)
    for status in (S.VIOLATION, S.RAISED, S.FAILED, S.INFRA, S.NOT_RUN):
        hit = next((c for c in cases if c.status == status), None)
        if hit is None:
            continue
        message = f"{hit.id}: {hit.message or status.value}"
        if status == S.VIOLATION:
            rule = get_rule(hit.rule or "")
            return P.VerdictRecord(V.REJECTED, rule.id, rule.layer, message, cases=cases)
        if status == S.RAISED:
            kind = V.COMPILE_ERROR if hit.rule == P.ErrorKind.COMPILE else V.CRASHED
            return P.VerdictRecord(kind, message=message, cases=cases,
                                   failure=_gpu_memory(hit.rule))
        failure = None
        if status == S.NOT_RUN and judge is None and judge_error:
            message = (f"{hit.id}: the reference worker failed: {P.cut(judge_error, 300)} "
                       f"(kgb's side, not the kernel's; see judge.log)")
            failure = _gpu_memory(judge_kind)
        verdict = V.INCORRECT if status == S.FAILED else V.UNVERIFIED
        return P.VerdictRecord(verdict, message=message, cases=cases, failure=failure)
    unchecked = [c for c in cases if c.status == S.NOT_CHECKABLE]
    if cases and not unchecked:
        return P.VerdictRecord(V.PASSED, message=unrun_note(plan), cases=cases)
    # Passed means every planned case was judged: a case this device cannot judge leaves the
    # job unverified (the GPU run decides), however many others passed.
    reasons = "; ".join(sorted({c.message for c in unchecked}))[:600]
    return P.VerdictRecord(V.UNVERIFIED, message=f"{len(unchecked)} of {len(cases)} case(s) "
                                                 f"could not be checked on this device: {reasons}",
                           cases=cases)


def unrun_note(plan: P.PlanRecord, shown: int = 3) -> str:
    """What a `passed` leaves unjudged: the task's shapes this device did not run (on the CPU
    its gpu_only ones; issue 28: an imported KernelBench problem passed on tiny CPU shapes,
    nothing saying its own shape never ran). Empty when every shape ran."""
    if not plan.unrun_shapes:
        return ""
    where = "CPU" if plan.slot == "cpu" else "device"
    names = "; ".join(plan.unrun_shapes[:shown])
    more = len(plan.unrun_shapes) - shown
    names += f"; and {more} more" if more > 0 else ""
    one = len(plan.unrun_shapes) == 1
    return (f"passed on {len(plan.cases)} {where} case(s); the task's shape{'' if one else 's'} "
            f"{names} {'runs' if one else 'run'} on a GPU only and {'was' if one else 'were'} "
            f"not judged")


def _gpu_memory(kind: str | None) -> P.ErrorKind | None:
    return P.ErrorKind.GPU_MEMORY if kind == P.ErrorKind.GPU_MEMORY else None


def out_of_gpu_memory(record: P.VerdictRecord) -> bool:
    """Crashed (the candidate) or unverified (the judge) because the GPU's memory ran out: a
    run with other jobs on that GPU runs the job again alone (kgb.runner.schedule)."""
    return record.failure == P.ErrorKind.GPU_MEMORY and \
        record.verdict in (V.CRASHED, V.UNVERIFIED)


def outgrew_outputs(record: P.VerdictRecord) -> bool:
    """Unverified because the outputs did not fit the output folder's cap (kgb's limit): a
    run of several jobs at once runs such a job again alone (kgb.runner.schedule)."""
    return record.verdict == V.UNVERIFIED and any(
        c.status == S.INFRA and c.rule == P.ErrorKind.STORAGE.value for c in record.cases)


def case_outcome(spec: P.CaseSpec, claim: P.CaseRecord | None, judged: P.CaseJudgement | None,
                 limits: InterpreterLimits | None, glue: str = "copies") -> P.CaseOutcome:
    cid = spec.id
    if spec.skip is not None:
        return P.CaseOutcome(cid, S.NOT_CHECKABLE, message=spec.skip)
    limited = limits.not_checkable(spec.dtype) if limits else None
    if limited is not None:
        return P.CaseOutcome(cid, S.NOT_CHECKABLE, message=limited)
    if claim is None or claim.skipped is not None or not claim.calls:
        return P.CaseOutcome(cid, S.NOT_RUN, message="the worker did not run this case")
    # A ghost call may fail any way it likes (no Triton kernel ran): only a right answer from
    # it counts (D301, from the judge). Its evidence is not judged either.
    ghosts_raised = {r.index for r in claim.calls
                     if r.kind == P.CallKind.GHOST and r.status == S.RAISED}
    records = [r for r in claim.calls if r.kind != P.CallKind.GHOST]
    for record in records:
        broken = rule_broken(record, glue)
        if broken is not None:
            rule, why = broken
            return P.CaseOutcome(cid, S.VIOLATION, message=f"{record.kind.value} call: {why}",
                                 rule=rule.id)
    raised = next((r for r in records if r.status == S.RAISED), None)
    if raised is not None and raised.error_kind == P.ErrorKind.STORAGE:
        return P.CaseOutcome(cid, S.INFRA, rule=P.ErrorKind.STORAGE.value,
                             message=f"{P.cut(raised.error, 300)}: the job's "
                                                   "outputs outgrew the output folder's cap; "
                                                   "raise it with --limit output=BYTES, or "
                                                   "run fewer --jobs (by default the jobs at "
                                                   "once share half the machine's memory)")
    if raised is not None and raised.error_kind == P.ErrorKind.INTERPRETER and limits:
        why = P.cut(raised.error, 300)
        return P.CaseOutcome(cid, S.NOT_CHECKABLE,
                             message=f"not checkable on the CPU interpreter: {why}")
    if raised is not None:
        excuse = limits.excuse_failure("raised") if limits else None
        if excuse:
            return P.CaseOutcome(cid, S.NOT_CHECKABLE, message=excuse)
        return P.CaseOutcome(cid, S.RAISED, message=P.cut(raised.error, 600),
                             rule=raised.error_kind.value if raised.error_kind else None)
    calls = tuple(c for c in (judged.calls if judged else ()) if c.index not in ghosts_raised)
    if len(calls) < len(spec.calls) - len(ghosts_raised) or \
            any(c.status == S.NOT_RUN for c in calls):
        return P.CaseOutcome(cid, S.NOT_RUN, message="the reference worker did not judge every "
                                                     "call of this case")
    infra = next((c for c in calls if c.status == S.INFRA), None)
    if infra is not None:
        return P.CaseOutcome(cid, S.INFRA, message=infra.message)
    ruled = next((c for c in calls if c.rule is not None), None)
    if ruled is not None:
        return P.CaseOutcome(cid, S.VIOLATION, ruled.max_abs, ruled.rel_l2,
                             f"{ruled.kind.value} call: {ruled.message}", ruled.rule)
    failed = next((c for c in calls if c.status == S.FAILED), None)
    measured = [c for c in calls if c.kind != P.CallKind.GHOST]  # a ghost is meant to be wrong
    worst_abs = _max(c.max_abs for c in measured)
    worst_l2 = _max(c.rel_l2 for c in measured)
    if failed is None:
        return P.CaseOutcome(cid, S.PASSED, worst_abs, worst_l2)
    excuse = limits.excuse_failure("mismatch") if limits else None
    if excuse:
        return P.CaseOutcome(cid, S.NOT_CHECKABLE, failed.max_abs, failed.rel_l2,
                             f"{excuse} (it did not match)")
    prefix = "" if failed.kind == P.CallKind.PRIMARY else f"{failed.kind.value} call: "
    return P.CaseOutcome(cid, S.FAILED, failed.max_abs, failed.rel_l2,
                         prefix + P.cut(failed.message, 600))


def rule_broken(record: P.CallRecord, glue: str = "copies") -> tuple[Rule, str] | None:
    """The runtime rule the worker's evidence of one call breaks, if any (layer 2); `glue`:
    the task's glue policy (kgb.tasks.model.GLUE_POLICIES)."""
    if record.host_arguments or record.kernel_body_ops:  # threat 34, whatever came of it
        seen = (record.host_arguments or record.kernel_body_ops)[0]
        what = "a launch passed a host object" if record.host_arguments else \
            "PyTorch ran inside a kernel body"
        return RR.HOST_OBJECT_IN_KERNEL, f"{what}: {P.cut(seen, 240)}"
    odd = [(i, t) for i, t in enumerate(record.output_types) if t != P.PLAIN_TENSOR]
    if odd:
        i, t = odd[0]
        return RR.OUTPUT_NOT_PLAIN_TENSOR, (f"output {i} is {P.cut(t, 120)}, not exactly "
                                            f"torch.Tensor")
    if record.aliases:
        out, inp = record.aliases[0]
        return RR.OUTPUT_ALIASES_INPUT, f"output {out} shares memory with input {inp}"
    if record.mutated_inputs:
        return RR.INPUT_MUTATED, f"input {record.mutated_inputs[0]} was modified by the kernel"
    if record.torch_ops:
        ops = ", ".join(P.cut(op, 40) for op in record.torch_ops[:6])
        return RR.TORCH_AT_RUN_TIME, f"the host code ran PyTorch ops: {ops}"
    if glue == "views" and record.copy_ops:  # threat 32: the copy is this task's answer
        ops = ", ".join(P.cut(op, 40) for op in record.copy_ops[:6])
        return RR.TORCH_AT_RUN_TIME, (f"the host code copied tensor data with PyTorch ({ops}); "
                                      "this task's answer is a re-layout (glue = \"views\"): "
                                      "read the inputs through their strides in the kernel")
    if record.late_write:
        # The worker re-reads the outputs while later calls run (kgb/worker/main.py, settle):
        # a change may be seen at a later call, past the wait itself.
        wait_ms = P.LATE_WRITE_WAIT_S * 1e3
        return RR.LATE_WRITE, ("the outputs changed after the call had returned and the device "
                               "was synchronized: seen at a re-read before the kernel was called "
                               "again, or after a later call that did not return that memory "
                               f"(re-read until at least {wait_ms:.0f} ms had passed)")
    if record.status == S.RETURNED and record.launches == 0:
        return RR.NO_OWN_TRITON_LAUNCH, ("the call launched no @triton.jit kernel defined in the "
                                         "kernel file")
    return None


def _rejected(rule: Rule, message: str) -> P.VerdictRecord:
    return P.VerdictRecord(V.REJECTED, rule.id, rule.layer, message)


def _max(values) -> float | None:
    vals = [v for v in values if v is not None]
    return max(vals) if vals else None


def _death_message(execution: P.ExecRecord | None) -> str:
    if execution is None:
        return "the worker did not run"
    code = execution.returncode
    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    if code is None:  # the supervisor was signalled while the worker ran: no status to report
        how = "no exit status: the sandbox's supervisor was stopped while the worker ran"
    tail = f": {execution.stderr_tail}" if execution.stderr_tail else ""
    return f"the worker died without a result ({how}){tail}"
