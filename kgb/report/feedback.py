"""A job's feedback: a few plain sentences written for whoever fixes the kernel — a person, or a
model in a generate → verify → repair loop. What failed, where (file:line, case, shape, dtype,
input distribution, first differing element), what kgb demands, and how an honest kernel gets
there. Built from the report's own job entry (a pure function), so a re-graded or re-rendered
report says the same thing."""

from __future__ import annotations

from typing import Any

MAX_CASES = 3  # failing cases spelled out; the rest are named briefly
MAX_NAMED = 12  # failing cases named beyond those (the feedback may be all a caller keeps:
#                 `verify_kernel` without `out=` deletes the run folder and its report.json)


def _case_words(case: dict[str, Any]) -> str:
    dims = ", ".join(f"{k}={v}" for k, v in (case.get("dims") or {}).items())
    layout = case.get("layout")
    layout_words = f", {layout} layout" if layout and layout != "contiguous" else ""
    return (f"case {case.get('id')} (shape {case.get('shape')}: {dims}; {case.get('dtype')}; "
            f"{case.get('mode')} inputs{layout_words})")


def _hint(rule_id: str | None) -> str:
    if not rule_id:
        return ""
    from kgb.anticheat.registry import get_rule

    try:
        rule = get_rule(rule_id)
    except KeyError:
        return ""
    return f" Rule {rule.id} ({rule.name}): {rule.summary} How to comply: {rule.hint}"


def _syntax_error(job: dict[str, Any]) -> bool:
    """A compile_error that is Python's parser refusing the file (layer 1's S100 finding), not
    Triton's compiler refusing a kernel."""
    findings = job.get("findings") or []
    first = findings[0] if findings and isinstance(findings[0], dict) else {}
    return first.get("rule") == "S100" and str(first.get("message", "")).startswith("syntax")


def feedback(job: dict[str, Any]) -> str:
    """The feedback text for one report job entry."""
    task, verdict = job.get("task"), job.get("verdict")
    message = job.get("message") or ""
    where = f" at {job['location']}" if job.get("location") else ""
    spec = f" The task's full spec: `kgb tasks show {task}`."
    cases = job.get("cases") or []
    if verdict == "missing":
        return f"{task}: no kernel was submitted for this task.{spec}"
    if verdict == "passed":
        cov = job.get("coverage") or {}
        speed = ""
        if job.get("speedup_eager") is not None:
            speed = f" Speedup over PyTorch eager: {job['speedup_eager']:.2f}x"
            if job.get("speedup_compile") is not None:
                speed += f", over torch.compile: {job['speedup_compile']:.2f}x"
            speed += "."
        unrun = [str(s) for s in job.get("unrun_shapes") or ()]
        if unrun:  # a CPU pass: the task's GPU-only shapes never ran
            more = f"; and {len(unrun) - MAX_CASES} more" if len(unrun) > MAX_CASES else ""
            one = len(unrun) == 1
            return (f"{task}: passed on the CPU — all {cov.get('cases', 0)} case(s) matched "
                    f"the reference, but the task's shape{'' if one else 's'} "
                    f"{'; '.join(unrun[:MAX_CASES])}{more} {'runs' if one else 'run'} on a GPU "
                    f"only and {'was' if one else 'were'} not judged: a kernel right only below "
                    f"some size can still fail there (`--device cuda` runs "
                    f"{'it' if one else 'them'}).{speed}")
        return f"{task}: passed — all {cov.get('cases', 0)} case(s) matched the reference.{speed}"
    if verdict == "rejected":
        findings = job.get("findings") or []
        lines = [f"{task}: rejected by rule {job.get('rule')}{where}: {message}."
                 f"{_hint(job.get('rule'))}"]
        for f in findings[1:]:
            at = f" at {f['location']}" if f.get("location") else ""
            lines.append(f"Also {f['rule']}{at}: {f['message']}.")
        return " ".join(lines) + spec
    if verdict == "incorrect":
        failed = [c for c in cases if c.get("status") == "failed"]
        total = len(cases)
        parts = [f"{task}: incorrect — {len(failed)} of {total} case(s) gave wrong outputs."]
        for case in failed[:MAX_CASES]:
            parts.append(f"{_case_words(case)}: {case.get('message')}.")
        rest = failed[MAX_CASES:]
        if rest:
            named = ", ".join(f"{c.get('id')}" for c in rest[:MAX_NAMED])
            more = f" and {len(rest) - MAX_NAMED} more" if len(rest) > MAX_NAMED else ""
            parts.append(f"Also failing: {named}{more}.")
        passed = [c for c in cases if c.get("status") == "passed"]
        if passed:
            shapes = sorted({str(c.get("shape")) for c in passed})
            parts.append(f"Cases that passed include shapes {', '.join(shapes[:4])}: compare "
                         "what differs (size, dtype, distribution, layout).")
        return " ".join(parts) + spec
    if verdict == "compile_error":
        if _syntax_error(job):
            return (f"{task}: compile_error{where} — the file is not valid Python: {message}. "
                    f"Fix that line (`python -m py_compile FILE` shows the same).{spec}")
        return (f"{task}: compile_error{where} — Triton refused the kernel: {message}. Fix that "
                f"line; the CPU interpreter reports what compiled Triton would refuse.{spec}")
    if verdict == "crashed":
        return (f"{task}: crashed{where} — {message}. The traceback (the kernel file's frames) "
                f"is in the job folder's out/traceback.txt.{spec}")
    if verdict == "timeout":
        return f"{task}: timeout — {message}. The kernel must finish every case in time.{spec}"
    return f"{task}: {verdict} — {message}.{spec}"
