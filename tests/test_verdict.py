"""Verdict precedence and fail-closed handling of the untrusted result file."""

from __future__ import annotations

from kgb.anticheat.registry import Finding
from kgb.runner.interpreter import InterpreterLimits, scan
from kgb.runner.verdict import decide
from kgb.sandbox.base import ExecResult

OK_EXEC = ExecResult(0, False, 1.0, "", "")


def result(*cases):
    return {"cases": list(cases), "error_kind": None}


def case(cid, status="ok", **kw):
    return {"id": cid, "status": status, **kw}


def judged(*entries):
    return {"cases": [{"id": cid, "status": st, "max_abs": 0.0, "rel_l2": 0.0, "message": m}
                      for cid, st, m in entries]}


def go(planned=None, **kw):
    args = dict(has_kernel=True, findings=[], execution=OK_EXEC, result=None, judge=None,
                limits=None, timeout_s=10, planned=planned or {"a": None, "b": None})
    args.update(kw)
    return decide(**args)


def test_all_cases_pass():
    v = go(result=result(case("a"), case("b")), judge=judged(("a", "pass", ""), ("b", "pass", "")))
    assert v.verdict == "passed" and v.coverage()["passed"] == 2


def test_one_mismatch_is_incorrect():
    v = go(result=result(case("a"), case("b")),
           judge=judged(("a", "pass", ""), ("b", "fail", "3 of 10 elements")))
    assert v.verdict == "incorrect" and "b: 3 of 10" in v.message


def test_case_missing_from_untrusted_result_is_never_passed():
    v = go(result=result(case("a")), judge=judged(("a", "pass", "")))
    assert v.verdict == "unverified"


def test_forged_skip_is_not_honoured():
    v = go(result=result(case("a"), case("b", "skipped")), judge=judged(("a", "pass", "")))
    assert v.verdict == "unverified"


def test_timeout_beats_everything_after_static():
    v = go(execution=ExecResult(None, True, 10.0, "", ""), result=result(case("a")))
    assert v.verdict == "timeout"


def test_no_result_file_is_crashed_with_signal():
    v = go(execution=ExecResult(-9, False, 1.0, "", "Killed\n"), result=None)
    assert v.verdict == "crashed" and "signal 9" in v.message and "Killed" in v.message


def test_import_failure_is_compile_error():
    v = go(result={"cases": [], "error_kind": "compile", "error": "SyntaxError: x"})
    assert v.verdict == "compile_error" and "SyntaxError" in v.message


def test_runtime_rule_beats_incorrect():
    v = go(result=result(case("a", "violation", rule="D201", error="input 0 was modified"),
                         case("b")), judge=judged(("b", "fail", "bad")))
    assert v.verdict == "rejected" and v.rule == "D201" and v.layer == 2


def test_static_finding_rejects_before_running():
    v = go(findings=[Finding("S101", "torch.matmul in host code", "k.py", 3, 4)], result=None)
    assert v.verdict == "rejected" and v.rule == "S101" and v.location == "k.py:3:4"


def test_missing_kernel():
    assert go(has_kernel=False).verdict == "missing"


def test_raised_case_is_crashed_or_compile_error():
    v = go(result=result(case("a", "raised", error="RuntimeError: x", error_type="runtime"),
                         case("b")), judge=judged(("b", "pass", "")))
    assert v.verdict == "crashed"
    v = go(result=result(case("a", "raised", error="CompilationError", error_type="compile"),
                         case("b")), judge=judged(("b", "pass", "")))
    assert v.verdict == "compile_error"


def test_interpreter_skips_are_not_checkable_and_never_passed():
    limits = InterpreterLimits(frozenset({"bf16-dot"}))
    planned = {"a": None, "b": limits.skip_reason("bfloat16")}
    v = go(planned=planned, limits=limits, result=result(case("a"), case("b", "skipped")),
           judge=judged(("a", "pass", "")))
    assert v.verdict == "passed" and v.coverage() == {"cases": 2, "checked": 1, "passed": 1,
                                                        "not_checkable": 1}
    v = go(planned={"b": planned["b"]}, limits=limits, result=result(case("b", "skipped")))
    assert v.verdict == "unverified" and "bfloat16" in v.message


def test_libdevice_failure_is_excused_only_with_libdevice():
    raised = result(case("a", "raised", error="InterpreterError", error_type="runtime"), case("b"))
    lib = InterpreterLimits(frozenset({"libdevice"}))
    v = go(limits=lib, result=raised, judge=judged(("b", "pass", "")))
    assert v.verdict == "passed" and v.cases[0].status == "not_checkable"
    v = go(limits=InterpreterLimits(frozenset()), result=raised, judge=judged(("b", "pass", "")))
    assert v.verdict == "crashed"


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
    assert scan(src).features == {"libdevice", "bf16-dot", "bool-ops", "autotune"}
    assert scan("def run(x):\n    return x and x\n").features == frozenset()
    assert scan("def (:").features == frozenset()


def test_bf16_dot_is_checkable_once_the_interpreter_is_fixed():
    src = "import triton.language as tl\n@triton.jit\ndef k(a):\n    tl.dot(a, a)\n"
    assert scan(src).skip_reason("bfloat16") is not None
    assert scan(src, bf16_dot_fixed=True).skip_reason("bfloat16") is None
    assert scan(src).skip_reason("float16") is None
