"""The Quantization and Optimizer tasks of issue 27: each is well formed to issue 13's bar (all
eight shape tags, a tiny and a non-power-of-two CPU shape, a cost model), a Quantization task
states its rounding and clamping contract and forbids the quantization APIs, and a task whose
kernel casts to float8 is judged on the CPU only with kgb's fp8 interpreter repair."""

from __future__ import annotations

import pytest
from conftest import ROOT

from kgb.tasks.cost_model import evaluate
from kgb.tasks.loader import load_suite

QUANTIZATION = (
    "fp8_e4m3_per_token", "fp8_e5m2_per_token", "fp8_e4m3_per_tensor", "fp8_block_act_1x128",
    "fp8_block_weight_128x128", "int8_per_group", "int4_per_group_asym", "smoothquant_int8",
    "mxfp4_dequant", "nvfp4_dequant", "w8a8_int8_gemm", "fp8_block_gemm", "w4a16_awq_gemm",
    "w4a16_gptq_gemm", "fp8_kv_cache_write", "fp8_e5m2_per_tensor", "fp8_e5m2_block_act_1x128",
    "fp8_e5m2_block_weight_128x128",
)
# the Optimizer tasks are in place now: tests/test_inplace.py holds them to the suite bar
IDS = [f"quantization.{n}" for n in QUANTIZATION]
FLOAT_GEMMS = {"quantization.fp8_block_gemm", "quantization.w4a16_awq_gemm",
               "quantization.w4a16_gptq_gemm"}
QUANTIZERS = [f"quantization.{n}" for n in QUANTIZATION if "dequant" not in n and "gemm" not in n]


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


@pytest.mark.parametrize("task_id", IDS)
def test_task_meets_the_suite_bar(suite, task_id):
    task = suite[task_id]
    # Every shape tag, the tiny and non-pow2 CPU shapes and bytes > 0: tests/test_tasks.py's
    # test_every_task_has_the_eight_shape_categories_and_cpu_regimes, for every task.
    assert any(s.gpu_only for s in task.shapes)  # something large enough to time
    for shape in task.shapes:
        values = dict(shape.dims, itemsize=2)
        assert evaluate(task.flops, values) > 0  # the suite-wide test allows 0
    assert "do not modify" in " ".join(task.description.lower().split())
    assert (task.folder / "solution.py").is_file()


@pytest.mark.parametrize("task_id", [i for i in IDS if i.startswith("quantization.")])
def test_quantization_tasks_state_the_contract_and_forbid_the_apis(suite, task_id):
    task = suite[task_id]
    # no float64 truth forgives a broken rounding contract; a float GEMM's accumulation order
    # is rounding noise the truth may weigh (the int8 GEMM is exact and strict)
    assert task.strict_tolerance == (task_id not in FLOAT_GEMMS)
    assert "torch.ao" in task.forbid
    if task_id in QUANTIZERS:
        text = " ".join(task.description.lower().split())
        assert "round" in text and "clamp" in text and "even" in text


def test_fp8_tasks_are_not_checkable_on_the_cpu_without_the_repair(suite):
    from kgb.protocol import FP8_CAST_FIX
    from kgb.runner.interpreter import FP8, InterpreterLimits, scan

    for name in ("fp8_e4m3_per_token", "fp8_block_act_1x128", "fp8_block_weight_128x128",
                 "fp8_e5m2_per_tensor", "fp8_e5m2_block_act_1x128",
                 "fp8_e5m2_block_weight_128x128", "fp8_dequant_per_tensor",
                 "fp8_dequant_per_token", "fp8_dequant_block_128x128",
                 "fp8_dequant_block_act_1x128"):
        features = scan((suite[f"quantization.{name}"].folder / "solution.py").read_text())
        assert FP8 in features
        assert InterpreterLimits(features).not_checkable("float32") is not None
        assert InterpreterLimits(features, frozenset({FP8_CAST_FIX})).not_checkable(
            "float32") is None


def test_a_float8_kernel_that_names_no_float8_type_is_still_flagged_by_its_task(suite):
    """A dequantizer needs no float8 name (`tl.load(codes).to(tl.float32)` on a float8 pointer):
    found by names alone it was checked as if the interpreter handled float8, and on a Triton
    without kgb's cast repair an honest kernel would be `incorrect` where it is not checkable.
    The task's own precisions (fp8) flag it."""
    from kgb.runner.interpreter import FP8, scan

    task = suite["quantization.fp8_dequant_per_tensor"]
    nameless = ("import triton\nimport triton.language as tl\n\n@triton.jit\n"
                "def k(q, o, n, B: tl.constexpr):\n"
                "    i = tl.arange(0, B)\n"
                "    tl.store(o + i, tl.load(q + i, mask=i < n).to(tl.float32), mask=i < n)\n")
    assert FP8 not in scan(nameless)
    assert "fp8" in task.precisions and FP8 in scan(nameless, task.precisions)
    assert FP8 not in scan(nameless, suite["activation.relu"].precisions)
