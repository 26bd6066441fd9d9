"""Twenty more Fusion tasks of issue 27 (attention variants, linear-attention and state-space
scans, MoE routing, MLP blocks, an fp8 MLP): each meets the suite's bar, and for most a
plausible wrong kernel (the reference run on inputs that drop one feature of the computation:
the window, the bias, the decay, the gate ...) fails the task's own comparison on a small CPU
case while the reference passes it. The suite-quality probes and the solutions run in
tests/test_suite_quality.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from conftest import ROOT

from kgb.runner.plan import plan_cases
from kgb.suite.quality import TaskProbe
from kgb.tasks.cost_model import evaluate
from kgb.tasks.loader import load_suite

TASKS = {  # name -> level
    "sliding_window_attention_backward_dq": 3, "t5_relative_bias_attention": 3,
    "block_sparse_attention": 3, "qk_norm_rope_attention": 3, "differential_attention": 3,
    "linear_attention_chunked": 3, "retention_chunked": 3, "selective_scan": 3,
    "mamba2_ssd_scan": 3, "gated_delta_rule_recurrent": 3, "llama_mlp_block": 3,
    "geglu_mlp_backward": 3, "mixture_of_depths_mlp": 3, "decode_attention_kv_append": 3,
    "fp8_per_tensor_swiglu_mlp": 3, "vit_patch_embed": 2, "softcap_cross_entropy": 2,
    "moe_router_aux_loss": 2, "deepseek_v2_group_topk": 2, "moe_capacity_dispatch": 2,
}


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


@pytest.mark.parametrize("name", sorted(TASKS))
def test_task_meets_the_suite_bar(suite, name):
    task = suite[f"fusion.{name}"]
    assert (task.level, task.category) == (TASKS[name], "Fusion")
    assert task.direction == ("backward" if name.endswith("backward_dq")
                              or name.endswith("_backward") else "forward")
    # Every shape tag, the tiny and non-pow2 CPU shapes and bytes > 0: tests/test_tasks.py's
    # test_every_task_has_the_eight_shape_categories_and_cpu_regimes, for every task.
    assert any(s.gpu_only for s in task.shapes)
    for shape in task.shapes:
        values = dict(shape.dims, itemsize=2)
        assert evaluate(task.flops, values) > 0  # the suite-wide test allows 0
    assert "do not modify" in " ".join(task.description.lower().split()) or task.inplace
    assert (task.folder / "solution.py").is_file()


def _set(i: int, value: Callable) -> Callable:
    def cheat(inputs: list) -> list:
        inputs[i] = value(inputs[i])
        return inputs
    return cheat


def _zeros(t):
    return torch.zeros_like(t)


def _ones(t):
    return torch.ones_like(t)


# (task, shape, what the wrong kernel forgets, how the inputs drop it)
WRONG = [
    ("sliding_window_attention_backward_dq", "tiny", "the window", _set(4, lambda w: 10 ** 6)),
    ("t5_relative_bias_attention", "tiny", "the relative bias", _set(3, _zeros)),
    ("block_sparse_attention", "tiny", "the block layout", _set(3, _ones)),
    ("qk_norm_rope_attention", "tiny", "the rotation",
     lambda x: _set(6, _zeros)(_set(5, _ones)(x))),
    ("qk_norm_rope_attention", "tiny", "the norms' weights", _set(3, _ones)),
    ("differential_attention", "tiny", "the second map", _set(4, lambda lam: 0.0)),
    ("retention_chunked", "tiny", "the decay", _set(3, _zeros)),
    ("selective_scan", "tiny", "the delta bias", _set(7, _zeros)),
    ("selective_scan", "tiny", "the D skip", _set(5, _zeros)),
    ("mamba2_ssd_scan", "tiny", "the dt bias", _set(6, _zeros)),
    ("gated_delta_rule_recurrent", "tiny", "the gate", _set(3, _zeros)),
    ("gated_delta_rule_recurrent", "tiny", "beta", _set(4, _ones)),
    ("llama_mlp_block", "tiny", "the norm's weight", _set(1, _ones)),
    ("vit_patch_embed", "tiny", "the position embedding", _set(3, _zeros)),
    ("softcap_cross_entropy", "tiny", "the softcap", _set(2, lambda c: 1e9)),
    ("deepseek_v2_group_topk", "odd", "the group limit", _set(2, lambda tg: 6)),
    ("mixture_of_depths_mlp", "tiny", "the router scaling", _set(1, _ones)),
]


def _case(task, shape: str, dtype: str = "float32"):
    return next(c for c in plan_cases(task, "cpu", 20261127)
                if c.shape.name == shape and c.dtype == dtype and c.mode == "standard"
                and c.layout == "contiguous")


@pytest.mark.parametrize("name, shape, forgets, cheat", WRONG,
                         ids=[f"{n}-{f}" for n, _, f, _ in WRONG])
def test_a_kernel_that_forgets_part_of_the_computation_fails(suite, name, shape, forgets, cheat):
    probe = TaskProbe(suite[f"fusion.{name}"])
    case = _case(probe.task, shape)
    inputs = probe.make(case)
    assert probe.judge(probe.expected(inputs), inputs, case.dtype) is None
    wrong = probe.expected(tuple(cheat(list(inputs))))
    assert probe.judge(wrong, inputs, case.dtype) is not None, f"forgetting {forgets} passes"


def test_geglu_backward_with_the_erf_gelu_fails(suite):
    """The task asks for the tanh approximation (Gemma's gelu_pytorch_tanh)."""
    probe = TaskProbe(suite["fusion.geglu_mlp_backward"])
    case = _case(probe.task, "odd")
    inputs = probe.make(case)
    x, wg, wu, wd, dy = (t.double() for t in inputs)
    with torch.enable_grad():
        xd = x.requires_grad_(True)
        y = (torch.nn.functional.gelu(xd @ wg.T) * (xd @ wu.T)) @ wd.T
        (dx,) = torch.autograd.grad(y, xd, dy)
    assert probe.judge([dx.float()], inputs, case.dtype) is not None


def test_fp8_mlp_with_per_row_scales_fails(suite):
    """Per-token activation scales (vLLM's other fp8 mode) are not the per-tensor contract."""
    probe = TaskProbe(suite["fusion.fp8_per_tensor_swiglu_mlp"])
    case = _case(probe.task, "odd")
    x, w13, s13, w2, s2 = probe.make(case)

    def quant_rows(z):
        s = z.abs().amax(dim=1, keepdim=True).clamp_min(1e-10) / 448.0
        return (z / s).clamp(-448, 448).to(torch.float8_e4m3fn).double(), s

    half = w13.shape[0] // 2
    xq, sx = quant_rows(x.float())
    gu = ((xq @ w13.double().T).float() * sx) * s13
    h = torch.nn.functional.silu(gu[:, :half]) * gu[:, half:]
    hq, sh = quant_rows(h)
    y = (((hq @ w2.double().T).float() * sh) * s2).to(x.dtype)
    assert probe.judge([y], (x, w13, s13, w2, s2), case.dtype) is not None


def test_aux_loss_from_the_renormalized_weights_fails(suite):
    """Switch/Mixtral's P_e is the mean of the full softmax, not of the top-k weights."""
    probe = TaskProbe(suite["fusion.moe_router_aux_loss"])
    case = _case(probe.task, "odd")
    logits, k = probe.make(case)
    weights, ids, aux = probe.expected((logits, k))
    E = logits.shape[1]
    kept = torch.zeros_like(logits, dtype=torch.float32).scatter_(1, ids.long(), weights)
    counts = torch.nn.functional.one_hot(ids.long(), E).sum((0, 1)).float()
    wrong = E * ((counts / logits.shape[0]) * kept.mean(0)).sum()
    assert probe.judge([weights, ids, aux], (logits, k), case.dtype) is None
    assert probe.judge([weights, ids, wrong], (logits, k), case.dtype) is not None
