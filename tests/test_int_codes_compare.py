"""Integer and float8 codes under `int_mismatch` (issue 26 residual 6): vLLM's per-token int8
quantizer (x * (127 / absmax)) missed quantization.per_token_int8 on an H100 with every code
within one step: a flipped tie in a bf16 outlier row, where most codes are 0 or ±1, pushed the
relative L2 error over the codes to 6.3e-3 (bound 5e-3). The task now bounds the share of codes
that moved instead; truncation, off-by-one and a per-tensor scale still fail."""

from __future__ import annotations

import importlib.util
import re
import shutil
from dataclasses import replace

import pytest
import torch
from conftest import ROOT

from kgb.errors import TaskError
from kgb.judge.compare import compare_outputs
from kgb.tasks.loader import load_task

TASK = ROOT / "tasks/Quantization/per_token_int8"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"ptq_{name}", TASK / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _vllm(x):
    xf = x.float()
    amax = xf.abs().amax(-1, keepdim=True)
    inv = torch.where(amax > 0, 127 / amax, torch.zeros_like(amax))
    return torch.round(xf * inv).clamp(-127, 127).to(torch.int8), amax / 127


def _truncating(x):
    xf = x.float()
    s = xf.abs().amax(-1, keepdim=True) / 127
    return (xf / torch.where(s > 0, s, torch.ones_like(s))).clamp(-127, 127).to(torch.int8), s


def _off_by_one(x, ref):
    q, s = ref(x)
    q16 = q.to(torch.int16)
    return (q16 + torch.sign(q16)).clamp(-127, 127).to(torch.int8), s


def _per_tensor(x):
    xf = x.float()
    s = xf.abs().amax() / 127
    return torch.round(xf / s).clamp(-127, 127).to(torch.int8), torch.full((x.shape[0], 1),
                                                                            float(s))


def test_a_tie_flipped_in_an_outlier_row_passes_the_share_bound_not_rel_l2():
    ref = torch.zeros(4096, dtype=torch.int8)
    ref[:40] = 1  # an outlier row: 1e3 sets the scale, the rest quantize to 0 or 1
    ref[0] = 127
    out = ref.clone()
    out[1] = 0  # one tie another float32 rounding flipped
    tol = load_task(TASK).tolerance_for("bfloat16")
    assert compare_outputs([out], [ref], replace(tol, int_mismatch=None)).passed is False
    assert compare_outputs([out], [ref], tol).passed
    out[1:3] = 3  # two steps: never a tie
    assert "differ by more than 1" in compare_outputs([out], [ref], tol).message


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_vllms_rounding_passes_and_the_wrong_quantizers_fail(dtype):
    task, inputs, ref = load_task(TASK), _module("inputs"), _module("reference").reference
    tol = task.tolerance_for(dtype)
    for seed in range(3):
        for mode in ("standard", "outlier"):
            for dims in ({"M": 3, "N": 17}, {"M": 33, "N": 1000}, {"M": 128, "N": 4096}):
                (x,) = inputs.make_inputs(dims, dtype, torch.Generator().manual_seed(seed), mode)
                want = list(ref(x))
                got = compare_outputs(list(_vllm(x)), want, tol)
                assert got.passed, (seed, mode, dims, got.message)
                if mode == "standard" and dims["N"] > 17:
                    for wrong in (_truncating(x), _off_by_one(x, ref), _per_tensor(x)):
                        assert not compare_outputs(list(wrong), want, tol).passed


def test_int_mismatch_needs_int_atol_and_a_share_below_half(tmp_path):
    folder = tmp_path / "q"
    shutil.copytree(TASK, folder)
    toml = folder / "task.toml"
    text = toml.read_text()
    toml.write_text(re.sub(r"int_mismatch = 0.02", "int_mismatch = 0.7", text))
    with pytest.raises(TaskError, match="int_mismatch must be in"):
        load_task(folder)
    toml.write_text(re.sub(r"int_atol = 1\n", "", text))
    with pytest.raises(TaskError, match="needs int_atol"):
        load_task(folder)
