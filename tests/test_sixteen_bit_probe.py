"""Issue 27: a task with no float32 dtype must fail its answer one format down (float16 rounded
through bfloat16, bfloat16 at float8 e4m3's precision) — the suite-quality probe that float32
tasks get from "bfloat16-rounded" (kgb.suite.quality.check_format_down)."""

from __future__ import annotations

from dataclasses import replace

import torch
from conftest import ROOT

from kgb.suite import quality as Q
from kgb.tasks.loader import load_suite, load_task

SCALED_MM = ROOT / "tasks/Quantization/fp8_scaled_mm"
SWIGLU = ROOT / "tasks/Fusion/w4a16_awq_swiglu_mlp"


def test_one_format_down_is_bfloat16_for_float16_and_e4m3_precision_for_bfloat16():
    half = torch.tensor([1.0, 1.0009765625, 3.14159, -1000.5], dtype=torch.float16)
    got = Q._format_down([half])
    assert got is not None
    assert torch.equal(got[0], half.to(torch.bfloat16).to(torch.float16))
    brain = torch.tensor([1.0, 1.0625, 1.07, 2.125, -3.3, 0.1, 300.0], dtype=torch.bfloat16)
    got = Q._format_down([brain])
    assert got is not None and got[0].dtype == torch.bfloat16
    # within e4m3's range its values are e4m3's own (round to nearest even)
    assert torch.equal(got[0].float(), brain.float().to(torch.float8_e4m3fn).float())
    # the range is kept: a kernel computing in fp8 would scale into it
    big = torch.tensor([3000.0], dtype=torch.bfloat16)
    assert float(Q._format_down([big])[0][0]) == 3072.0


def test_an_answer_exact_in_the_lower_format_is_no_probe():
    """fp4 values dequantized (mxfp4_dequant) are exact in both: nothing to fail, NaN included;
    float32 and integer outputs are not this probe's."""
    exact = torch.tensor([0.5, -6.0, float("nan"), 0.0, 1.5], dtype=torch.float16)
    assert Q._format_down([exact]) is None
    assert Q._format_down([exact.to(torch.bfloat16)]) is None
    assert Q._format_down([torch.randn(8), torch.arange(4)]) is None


def test_fp8_scaled_mm_fails_bfloat16_rounding_of_its_float16_answer_and_passed_it_before():
    """The cheating answer (float16 output rounded through bfloat16) passed all but a lucky CPU
    case or two under the old bounds (rel_l2 2e-3, the float64 truth forgiving the rest); the
    strict 7e-4 fails it on every one, and the suite's solution still passes its float16 cases
    in the interpreter."""
    task = load_task(SCALED_MM)
    cases = Q._cases(task, True)
    assert task.strict_tolerance and task.tolerance_for("float16").rel_l2 == 7e-4
    assert Q.check_format_down(Q.TaskProbe(task), cases) == []
    old = dict(task.tolerance)
    old["float16"] = replace(old["float16"], rel_l2=2e-3)
    before = replace(task, tolerance=tuple(old.items()), strict_tolerance=False)
    problems = [p.what for p in Q.check_format_down(Q.TaskProbe(before), cases)]
    assert len(problems) == 1 and problems[0].startswith(
        "a float16 answer rounded through bfloat16 (one format down) fails only "), problems
    Q.prepare_interpreter()
    probe = Q.TaskProbe(task)
    tiny = [c for c in Q._cases(task, False) if c.dtype == "float16"]
    assert tiny and Q.check_solution(probe, tiny) == []


def test_tasks_whose_honest_spread_overlaps_bfloat16_keep_the_float8_step():
    """Where the float16 bound cannot separate bfloat16 rounding from honest noise (docs/
    tasks.md), only the float16 probe is off; each listed task is 16-bit only, and a task with
    a float32 dtype gets the bfloat16-rounded probe instead."""
    every = {t.id: t for t in load_suite(ROOT / "tasks").values() if "float32" not in t.dtypes}
    for task_id in Q.HALF_OVERLAP:
        assert not Q._format_down_applies(every[task_id], "float16")
        assert Q._format_down_applies(every[task_id], "bfloat16")
    addcmul = load_task(ROOT / "tasks/Math/addcmul")
    assert "float32" in addcmul.dtypes
    assert not any(Q._format_down_applies(addcmul, d) for d in addcmul.dtypes)


def test_every_sixteen_bit_only_gemm_fails_its_answer_one_format_down():
    """`make test` samples a quarter of the suite's quality checks and none of these: the probe
    is held here, on every CPU shape (the swiglu MLP, 12 s of CPU, in the test below)."""
    for folder in ("fp8_scaled_mm", "fp8_block_gemm", "w4a16_awq_gemm", "w4a16_gptq_gemm",
                   "w8a16_int8_gemm"):
        task = load_task(ROOT / "tasks/Quantization" / folder)
        assert Q.check_format_down(Q.TaskProbe(task), Q._cases(task, True)) == [], task.id


def test_the_float8_step_needs_the_larger_cpu_shapes_of_the_swiglu_mlp():
    """Its tiny output (384 elements) at e4m3 precision sits inside the float64 truth's
    forgiveness; the larger CPU shapes fail it (6 of its 8 CPU cases) — why the probe runs on
    every CPU shape."""
    task = load_task(SWIGLU)
    probe = Q.TaskProbe(task)
    tiny = Q._cases(task, False)
    assert [p.what for p in Q.check_format_down(probe, tiny)] == [
        "a bfloat16 answer with e4m3's 3 mantissa bits (one format down) fails only 0 of 2 CPU "
        "cases: the bound must fail it on most"]
    small = [c for c in Q._cases(task, True) if c.shape.name == "small"]
    assert small and Q.check_format_down(probe, small) == []
