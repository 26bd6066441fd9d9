"""Verdict precedence, fail-closed handling of the untrusted result file, and hostile parsing of
what the worker writes (kgb.protocol)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kgb import protocol as P
from kgb.protocol import CallKind as K
from kgb.protocol import CaseStatus as S
from kgb.runner.interpreter import InterpreterLimits, scan
from kgb.runner.verdict import decide

OK_EXEC = P.ExecRecord("process", 0, False, 1.0, False)


def spec(cid: str, skip: str | None = None, dtype: str = "float32",
         kinds: tuple[K, ...] = (K.PRIMARY,)) -> P.CaseSpec:
    return P.CaseSpec(cid, "s", {"N": 4}, dtype, "standard", "contiguous",
                      tuple(P.CallSpec(k, 7 + i) for i, k in enumerate(kinds)), skip)


def plan(*cases: P.CaseSpec, findings=(), kernel="kernels/k.py", features=()) -> P.PlanRecord:
    cases = cases or (spec("a"), spec("b"))
    return P.PlanRecord("t.x", "Math", kernel, "cpu", 10.0, cases, findings=tuple(findings),
                        interpreter_features=tuple(features))


def call(status=S.RETURNED, kind=K.PRIMARY, index=0, **kw) -> P.CallRecord:
    defaults = dict(output_types=("torch.Tensor",), launches=1)
    if status == S.RAISED:
        defaults = {}
    return P.CallRecord(index, kind, status, **{**defaults, **kw})


def case(cid, *calls: P.CallRecord, skipped=None) -> P.CaseRecord:
    return P.CaseRecord(cid, calls or (call(),), skipped)


def result(*cases, **kw) -> P.WorkerResult:
    return P.WorkerResult("done", tuple(cases), **kw)


def judged(*entries) -> P.JudgeResult:
    """(case id, status, message) per case, one primary call each."""
    return P.JudgeResult(tuple(P.CaseJudgement(cid, (P.CallJudgement(0, K.PRIMARY, st, 0.0, 0.0,
                                                                     m),))
                               for cid, st, m in entries))


def go(the_plan=None, execution=OK_EXEC, result=None, judge=None, limits=None):
    return decide(the_plan or plan(), execution, result, judge, limits)


def test_all_cases_pass():
    v = go(result=result(case("a"), case("b")), judge=judged(("a", S.PASSED, ""),
                                                             ("b", S.PASSED, "")))
    assert v.verdict == "passed" and v.coverage()["passed"] == 2


def test_one_mismatch_is_incorrect():
    v = go(result=result(case("a"), case("b")),
           judge=judged(("a", S.PASSED, ""), ("b", S.FAILED, "3 of 10 elements")))
    assert v.verdict == "incorrect" and "b: 3 of 10" in v.message


def test_case_missing_from_untrusted_result_is_never_passed():
    v = go(result=result(case("a")), judge=judged(("a", S.PASSED, "")))
    assert v.verdict == "unverified"


def test_forged_skip_is_not_honoured():
    v = go(result=result(case("a"), case("b", skipped="I say so")),
           judge=judged(("a", S.PASSED, "")))
    assert v.verdict == "unverified"


def test_timeout_beats_everything_after_static():
    v = go(execution=P.ExecRecord("process", None, True, 10.0, False), result=result(case("a")))
    assert v.verdict == "timeout"


def test_a_timeout_names_the_budget_the_supervisor_saw_run_out():
    """The compile time in the message is the supervisor's (exec.json), not the worker's
    claim: a worker whose progress file says it spent the whole budget compiling while the
    supervisor timed none of it ran out of run time."""
    the_plan = P.PlanRecord("t.x", "Math", "kernels/k.py", "cpu", 10.0, (spec("a"),),
                            compile_budget_s=60.0)
    claim = P.Progress("case a", 0, 60.0, 70.0)
    hung = P.ExecRecord("process", None, True, 10.0, False, compile_s=0.0)
    v = decide(the_plan, hung, None, None, None, claim)
    assert v.verdict == "timeout" and "run-time budget" in v.message, v.message
    assert v.message.endswith("--timeout SECONDS raises it")
    tuned = P.ExecRecord("process", None, True, 70.0, False, compile_s=60.0)
    v = decide(the_plan, tuned, None, None, None, claim)
    assert "compile/autotune budget" in v.message and "took 60 s" in v.message, v.message
    assert v.message.endswith("--limit compile_case=SECONDS (per case) or compile=SECONDS (the "
                              "least per job) raises it")


def test_a_timeout_names_the_stage_the_supervisor_saw_and_the_start_up_apart():
    """Issue 28: the message said "stage device" (a stale progress file) while exec.json's
    marks showed the worker in `cases`; start-up is named apart and draws on the start-up/
    compile budget, never on the run time."""
    the_plan = P.PlanRecord("t.x", "Math", "kernels/k.py", "cpu", 30.0, (spec("a"),),
                            compile_budget_s=60.0)
    stale = P.Progress("device", 0, 0.0, 19.0)
    marks = tuple(P.Mark(f"stage {s}", t) for s, t in (("runtime", 15.0), ("device", 15.1),
                                                        ("import", 19.5), ("cases", 19.6)))
    ran = P.ExecRecord("process", None, True, 50.0, False, channel=True, marks=marks,
                       compile_s=0.0, startup_s=19.5)
    v = decide(the_plan, ran, None, None, None, stale)
    assert "run-time budget" in v.message and "stage cases" in v.message, v.message
    assert "start-up took 20 s" in v.message and "stage device" not in v.message
    slow_start = replace(ran, marks=marks[:2], compile_s=0.0, startup_s=60.0)
    v = decide(the_plan, slow_start, None, None, None, stale)
    assert "start-up/compile/autotune budget" in v.message and "stage device" in v.message


def test_no_result_file_is_crashed_with_signal():
    v = go(execution=P.ExecRecord("process", -9, False, 1.0, False, stderr_tail="Killed"),
           result=None)
    assert v.verdict == "crashed" and "signal 9" in v.message and "Killed" in v.message


def test_no_result_without_an_exit_status_says_the_supervisor_was_stopped():
    """A supervisor signalled after `go` reports no status (the worker may have done it: same
    uid on `process`), so the kernel keeps `crashed` — with a message that says what
    happened, not 'exit code None' (issue 28's hang under load said only that)."""
    v = go(execution=P.ExecRecord("process", None, False, 0.5, False), result=None)
    assert v.verdict == "crashed" and "exit code None" not in v.message
    assert "supervisor was stopped while the worker ran" in v.message, v.message


def test_import_failure_is_compile_error():
    v = go(result=result(error_kind=P.ErrorKind.COMPILE, error="SyntaxError: x"))
    assert v.verdict == "compile_error" and "SyntaxError" in v.message


def test_runtime_rule_beats_incorrect():
    v = go(result=result(case("a", call(mutated_inputs=(0,))), case("b")),
           judge=judged(("a", S.PASSED, ""), ("b", S.FAILED, "bad")))
    assert v.verdict == "rejected" and v.rule == "D201" and v.layer == 2


@pytest.mark.parametrize("evidence, rule", [
    (dict(output_types=("mylib.LazyTensor",)), "D203"),
    (dict(aliases=((0, 1),)), "D202"),
    (dict(mutated_inputs=(2,)), "D201"),
    (dict(launches=0), "D204"),
])
def test_each_runtime_rule_is_decided_from_evidence(evidence, rule):
    v = go(result=result(case("a", call(**evidence)), case("b")),
           judge=judged(("a", S.PASSED, ""), ("b", S.PASSED, "")))
    assert v.verdict == "rejected" and v.rule == rule


def test_a_ghost_call_needs_no_launch_but_a_correct_ghost_is_rejected():
    the_plan = plan(spec("a", kinds=(K.PRIMARY, K.GHOST)))
    claims = result(case("a", call(), call(kind=K.GHOST, index=1, launches=0)))
    ghost_wrong = P.JudgeResult((P.CaseJudgement("a", (
        P.CallJudgement(0, K.PRIMARY, S.PASSED), P.CallJudgement(1, K.GHOST, S.PASSED))),))
    assert go(the_plan, result=claims, judge=ghost_wrong).verdict == "passed"
    ghost_right = P.JudgeResult((P.CaseJudgement("a", (
        P.CallJudgement(0, K.PRIMARY, S.PASSED),
        P.CallJudgement(1, K.GHOST, S.FAILED, message="still right", rule="D301"))),))
    v = go(the_plan, result=claims, judge=ghost_right)
    assert v.verdict == "rejected" and v.rule == "D301" and v.layer == 3


def test_static_finding_rejects_before_running():
    v = go(plan(findings=[P.Finding("S101", "torch.matmul in host code", "k.py", 3, 4)]))
    assert v.verdict == "rejected" and v.rule == "S101" and v.location == "k.py:3:4"


def test_every_static_finding_reaches_the_report():
    from kgb.report.json_report import job_entry

    findings = [P.Finding("S110", "torch.matmul in host code", "k.py", 3, 4),
                P.Finding("S111", "`x.sum()` is tensor compute", "k.py", 9, 1),
                P.Finding("S140", "assigns to torch.cuda.Event", "k.py", 12, 0)]
    the_plan = plan(findings=findings)
    v = go(the_plan)
    assert v.verdict == "rejected" and "(and 2 more findings" in v.message
    entry = job_entry(the_plan, P.JobRecord(v, P.JobFacts("jobs/t.x", "cpu")))
    assert [f["rule"] for f in entry["findings"]] == ["S110", "S111", "S140"]
    assert entry["findings"][1]["location"] == "k.py:9:1"


def test_missing_kernel():
    assert go(plan(kernel=None)).verdict == "missing"


def test_raised_case_is_crashed_or_compile_error():
    v = go(result=result(case("a", call(S.RAISED, error="RuntimeError: x",
                                        error_kind=P.ErrorKind.RUNTIME)), case("b")),
           judge=judged(("b", S.PASSED, "")))
    assert v.verdict == "crashed"
    v = go(result=result(case("a", call(S.RAISED, error="CompilationError",
                                        error_kind=P.ErrorKind.COMPILE)), case("b")),
           judge=judged(("b", S.PASSED, "")))
    assert v.verdict == "compile_error"


def test_interpreter_limits_are_not_checkable_and_never_passed():
    limits = InterpreterLimits(frozenset({"bf16-dot"}))
    the_plan = plan(spec("a"), spec("b", dtype="bfloat16"))
    v = go(the_plan, limits=limits, result=result(case("a"), case("b")),
           judge=judged(("a", S.PASSED, ""), ("b", S.FAILED, "garbage")))
    # 1 of 2 judged: never passed (issue: a job passes only when every planned case was judged)
    assert v.verdict == "unverified" and "1 of 2 case(s)" in v.message
    assert v.coverage() == {"cases": 2, "checked": 1, "passed": 1, "not_checkable": 1}
    v = go(plan(spec("b", dtype="bfloat16")), limits=limits, result=result(case("b")),
           judge=judged(("b", S.PASSED, "")))
    assert v.verdict == "unverified" and "bfloat16" in v.message
    repaired = InterpreterLimits(frozenset({"bf16-dot"}), frozenset({"bf16-dot-upcast"}))
    v = go(plan(spec("b", dtype="bfloat16")), limits=repaired, result=result(case("b")),
           judge=judged(("b", S.PASSED, "")))
    assert v.verdict == "passed"


def test_libdevice_failure_is_excused_only_with_libdevice():
    raised = result(case("a", call(S.RAISED, error="InterpreterError",
                                   error_kind=P.ErrorKind.RUNTIME)), case("b"))
    lib = InterpreterLimits(frozenset({"libdevice"}))
    v = go(limits=lib, result=raised, judge=judged(("b", S.PASSED, "")))
    assert v.verdict == "unverified" and v.cases[0].status == "not_checkable"
    v = go(limits=InterpreterLimits(frozenset()), result=raised, judge=judged(("b", S.PASSED, "")))
    assert v.verdict == "crashed"
    # with the libdevice repair applied, a failure is the kernel's own
    repaired = InterpreterLimits(frozenset({"libdevice"}), frozenset({"libdevice-via-torch"}))
    v = go(limits=repaired, result=raised, judge=judged(("b", S.PASSED, "")))
    assert v.verdict == "crashed"


def test_six_passed_and_eighteen_not_checkable_is_not_passed():
    """The CPU fail-open the attacker used: 6 of 24 judged used to be `passed`."""
    specs = tuple(spec(f"c{i}", dtype="bfloat16" if i >= 6 else "float32") for i in range(24))
    limits = InterpreterLimits(frozenset({"bf16-dot"}))
    v = go(plan(*specs), limits=limits, result=result(*(case(s.id) for s in specs)),
           judge=judged(*((s.id, S.PASSED, "") for s in specs)))
    assert v.verdict == "unverified" and v.message.startswith("18 of 24 case(s)")


def test_scan_sees_interpreter_limits():
    src = '''
import triton, triton.language as tl
from triton.language.extra import libdevice
@triton.autotune(configs=[], key=[])
@triton.jit
def k(a, b):
    x = tl.load(a)
    if x > 0 and x < 1:
        pass
    tl.store(b, libdevice.tanh(tl.dot(x, x)))
def run(a):
    ok = a is not None and True   # host-side `and` is fine
'''
    assert scan(src) == {"libdevice", "bf16-dot", "bool-ops", "autotune"}
    assert scan("def run(x):\n    return x and x\n") == frozenset()
    assert scan("def (:") == frozenset()


def test_scan_and_static_layer_agree_on_what_a_kernel_is():
    """`jit = triton.jit; @jit` and `k = triton.jit(f)` are kernels to both (one helper)."""
    src = '''
import triton
import triton.language as tl
jit = triton.jit
@jit
def k(a):
    if not tl.program_id(0):
        pass
def g(a):
    return a or a
h = triton.jit(g)
'''
    assert "bool-ops" in scan(src)
    assert "bool-ops" not in scan(src.replace("@jit\n", ""). replace("h = triton.jit(g)", ""))


# ---------------------------------------------------------------- hostile result files

def _write(tmp_path, data) -> "P.WorkerResult | P.ProtocolError | None":
    from kgb.runner.grade import read_result

    (tmp_path / P.RESULT_FILE).write_text(data if isinstance(data, str) else json.dumps(data))
    return read_result(tmp_path)


GOOD = P.to_json(result(case("a")))


def test_a_good_result_file_parses(tmp_path):
    assert isinstance(_write(tmp_path, GOOD), P.WorkerResult)


@pytest.mark.parametrize("mutate, why", [
    (lambda d: d.update(sneaky=1), "unknown key 'sneaky'"),
    (lambda d: d["cases"][0]["calls"][0].update(launches="many"), "expected an integer"),
    (lambda d: d["cases"][0]["calls"][0].update(status="passed!"), "is not one of"),
    (lambda d: d["cases"][0].update(calls={"0": 1}), "expected a list"),
    (lambda d: d.pop("stage"), "missing key 'stage'"),
    (lambda d: d["cases"][0]["calls"][0].update(aliases=[[0]]), "expected 2 items"),
])
def test_forged_result_files_are_rejected_with_a_reason(tmp_path, mutate, why):
    data = json.loads(json.dumps(GOOD))
    mutate(data)
    parsed = _write(tmp_path, data)
    assert isinstance(parsed, P.ProtocolError) and why in str(parsed)
    v = go(plan(spec("a")), result=parsed)
    assert v.verdict == "rejected" and v.rule == "D205" and why in v.message


def test_truncated_and_huge_result_files_are_rejected(tmp_path):
    text = json.dumps(GOOD)
    assert "not valid JSON" in str(_write(tmp_path, text[: len(text) // 2]))
    huge = dict(GOOD, error="x" * (P.RESULT_MAX_BYTES + 10))
    parsed = _write(tmp_path, huge)
    assert isinstance(parsed, P.ProtocolError) and "cap" in str(parsed)
    assert go(plan(spec("a")), result=parsed).verdict == "rejected"


def test_a_missing_result_file_is_a_crash_not_a_rejection(tmp_path):
    from kgb.runner.grade import read_result

    assert read_result(tmp_path) is None
    assert go(plan(spec("a")), result=None).verdict == "crashed"


def test_enums_are_the_one_vocabulary():
    assert {s.value for s in P.Verdict} == {"passed", "rejected", "incorrect", "compile_error",
                                           "crashed", "timeout", "missing", "unverified"}
    assert P.parse(P.CaseOutcome, {"id": "a", "status": "passed"}).status is S.PASSED


def test_a_result_naming_other_files_is_rejected(tmp_path):
    """The old protocol let the worker say where its outputs were; a forged name now is an
    unknown key, and the judge never reads a name the worker wrote."""
    data = json.loads(json.dumps(GOOD))
    data["cases"][0]["calls"][0]["output_file"] = "../../refcache/math.addcmul/tiny.safetensors"
    parsed = _write(tmp_path, data)
    assert isinstance(parsed, P.ProtocolError) and "output_file" in str(parsed)


CAP = 1 << 20


def test_the_judge_reads_only_the_planned_file_inside_the_output_folder(tmp_path):
    import torch
    from safetensors.torch import save_file

    from kgb.judge.judge import load_outputs

    out = tmp_path / "jobs" / "t" / "out"
    out.mkdir(parents=True)
    cache = tmp_path / "refcache" / "t"
    cache.mkdir(parents=True)
    save_file({"out0": torch.ones(3)}, str(cache / "ref.safetensors"))
    name = P.output_file(0, 0)
    (out / name).symlink_to(cache / "ref.safetensors")  # the reference, through a link
    with pytest.raises(ValueError, match="missing"):
        load_outputs(out, name, "cpu", CAP)
    (out / name).unlink()
    with pytest.raises(ValueError, match="missing"):
        load_outputs(out, name, "cpu", CAP)  # nothing at the planned name: nothing is read
    with pytest.raises(ValueError, match="not inside"):
        load_outputs(out, "../../../refcache/t/ref.safetensors", "cpu", CAP)
    save_file({"out0": torch.zeros(3)}, str(out / name))
    assert torch.equal(load_outputs(out, name, "cpu", CAP)[0], torch.zeros(3))
    # the cap is the job's output-folder limit, whatever it is: a file the sandbox could not
    # have let through is refused, one it allowed is read (a fixed 4 GiB cap once called a
    # 6.4 GB softmax output `incorrect`)
    size = (out / name).stat().st_size
    with pytest.raises(ValueError, match="size cap"):
        load_outputs(out, name, "cpu", size - 1)
    assert torch.equal(load_outputs(out, name, "cpu", size)[0], torch.zeros(3))


def test_outputs_that_outgrow_the_output_folder_are_kgbs_limit_not_a_crash():
    """Seen on an H100 through bwrap: a GPU job's outputs filled the 8 GiB output tmpfs and an
    honest kernel was called crashed. It is kgb's limit: the job is unverified, with the fix."""
    full = call(S.RAISED, error="outputs could not be saved: SafetensorError: No space left on "
                                "device (os error 28)", error_kind=P.ErrorKind.STORAGE)
    v = go(result=result(case("a"), case("b", full)), judge=judged(("a", S.PASSED, "")))
    assert v.verdict == "unverified" and "--limit output=" in v.message, v.message


def test_a_cpu_pass_names_the_shapes_that_did_not_run():
    """Issue 28: a CPU `passed` on an imported KernelBench problem said nothing about its own
    (gpu_only) shape. The verdict's message names every shape the device left unrun; a run
    that ran every shape keeps an empty message."""
    ok = dict(result=result(case("a"), case("b")),
              judge=judged(("a", S.PASSED, ""), ("b", S.PASSED, "")))
    assert go(**ok).message == ""
    one = replace(plan(), unrun_shapes=("given (batch_size=4096, dim=393216)",))
    v = go(one, **ok)
    assert v.verdict == P.Verdict.PASSED
    assert v.message == ("passed on 2 CPU case(s); the task's shape given (batch_size=4096, "
                         "dim=393216) runs on a GPU only and was not judged")
    many = replace(plan(), unrun_shapes=tuple(f"s{i} (N={i})" for i in range(5)))
    assert go(many, **ok).message.endswith(
        "shapes s0 (N=0); s1 (N=1); s2 (N=2); and 2 more run on a GPU only and were not judged")
    # Only a pass carries it: an incorrect verdict's message is the failing case's.
    bad = go(one, result=result(case("a"), case("b")),
             judge=judged(("a", S.PASSED, ""), ("b", S.FAILED, "off by one")))
    assert bad.verdict == P.Verdict.INCORRECT and "GPU only" not in bad.message


def test_unrun_shapes_are_the_tasks_gpu_only_shapes_on_the_cpu_only():
    from kgb.runner.plan import unrun_shapes
    from kgb.tasks.loader import load_suite

    from conftest import ROOT

    task = next(t for t in load_suite(ROOT / "tasks").values()
                if any(s.gpu_only for s in t.shapes))
    gpu_only = [s for s in task.shapes if s.gpu_only]
    names = unrun_shapes(task, "cpu")
    assert len(names) == len(gpu_only) and names[0].startswith(f"{gpu_only[0].name} (")
    assert unrun_shapes(task, "cuda:0") == ()
