"""The backward tasks of issue 27: the suite holds at least 80, each new one meets the suite bar
(all eight shape tags, a tiny and a non-power-of-two CPU shape, a GPU shape, a cost model), and
its tolerance rejects the near-miss a generator is most likely to write (a boundary taken on the
wrong side, a dropped term, a lower-precision dot product), while the reference itself passes.
The honest solutions are run by tests/test_suite_quality.py."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from conftest import ROOT

from kgb.suite.quality import TaskProbe, _cases
from kgb.tasks.cost_model import evaluate
from kgb.tasks.loader import load_suite
from kgb.tasks.model import SHAPE_TAGS  # noqa: F401 - tests/test_tasks.py imports it

NEW = (
    "activation.elu_backward", "activation.selu_backward", "activation.hardsigmoid_backward",
    "activation.hardtanh_backward", "activation.logsigmoid_backward",
    "activation.quick_gelu_backward", "activation.relu_squared_backward",
    "activation.glu_backward", "activation.gelu_tanh_and_mul_backward",
    "activation.prelu_backward", "loss.l1_backward", "loss.huber_none_backward",
    "loss.bce_backward", "loss.kl_div_backward", "loss.soft_target_cross_entropy_backward",
    "loss.jsd_backward", "loss.cross_entropy_z_loss_backward",
    "loss.fused_linear_cross_entropy_backward", "reduce.logsumexp_backward",
    "reduce.cumsum_backward", "normalization.fused_add_rms_norm_backward",
    "normalization.batch_norm_train_backward", "fusion.gated_rms_norm_backward",
    "fusion.softmax_dropout_backward", "spatial.rotary_embedding_gptj_backward",
    "convolution.causal_conv1d_backward",
)


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


def test_the_suite_has_at_least_80_backward_tasks(suite):
    backward = [t for t in suite.values() if t.direction == "backward"]
    assert len(backward) >= 80
    assert all(t.id.endswith(("_backward", "_grad", "_dq", "_dk", "_dv", "_db", "_dw", "_dx"))
               for t in backward)


@pytest.mark.parametrize("task_id", NEW)
def test_new_backward_task_meets_the_suite_bar(suite, task_id):
    task = suite[task_id]
    assert task.direction == "backward"
    # Every shape tag, the tiny and non-pow2 CPU shapes and bytes > 0: tests/test_tasks.py's
    # test_every_task_has_the_eight_shape_categories_and_cpu_regimes, for every task.
    assert any(s.gpu_only for s in task.shapes)
    for shape in task.shapes:
        values = dict(shape.dims, itemsize=2)
        assert evaluate(task.flops, values) > 0  # the suite-wide test allows 0
    text = " ".join(task.description.lower().split())
    assert "do not modify" in text and "grad" in text
    if "sum_i" in text or "grad_weight" in text or "grad_bias" in text:
        # a reduction over rows: the description states the determinism contract
        assert "deterministic" in text and "no atomics" in text
    assert (task.folder / "solution.py").is_file()


def _fails(suite, task_id: str, answer) -> tuple[bool, bool]:
    """(the reference passes every tiny case, the near-miss `answer` fails at least one)."""
    probe = TaskProbe(suite[task_id])
    reference_ok, caught = True, False
    for case in _cases(probe.task, all_shapes=False):
        inputs = probe.make(case)
        reference_ok &= probe.judge(probe.expected(inputs), inputs, case.dtype) is None
        caught |= probe.judge(list(answer(*inputs)), inputs, case.dtype) is not None
    return reference_ok, caught


def _hardtanh_closed_bounds(x, lo, hi, g):
    # passes the gradient AT the bounds too (aten passes none there)
    return [torch.where((x >= lo) & (x <= hi), g, torch.zeros_like(g))]


def _prelu_zero_as_positive(x, w, g):
    xf, gf = x.float(), g.float()
    dx = torch.where(xf >= 0, gf, w.float() * gf)
    dw = torch.where(xf >= 0, torch.zeros_like(xf), xf * gf).sum(0)
    return [dx.to(x.dtype), dw.to(x.dtype)]


def _l1_sign_of_zero_is_one(a, b, g):
    s = torch.where(a.float() >= b.float(), 1.0, -1.0)
    return [(s * (g / a.numel())).to(a.dtype)]


def _ce_without_z_loss(logits, target, z_loss, g):
    valid = target != -100
    p = torch.softmax(logits.double(), dim=-1)
    one_hot = F.one_hot(target.clamp(min=0), logits.shape[1]).double()
    d = (p - one_hot) * valid[:, None] * (g.double() / valid.sum())
    return [d.to(logits.dtype)]


def _ce_mean_over_all_rows(logits, target, z_loss, g):
    # divides by N, counting the ignored rows
    valid = target != -100
    x = logits.double()
    p = torch.softmax(x, dim=-1)
    lse = torch.logsumexp(x, dim=-1, keepdim=True)
    one_hot = F.one_hot(target.clamp(min=0), logits.shape[1]).double()
    d = (p * (1 + 2 * z_loss * lse) - one_hot) * valid[:, None] * (g.double() / len(target))
    return [d.to(logits.dtype)]


def _geglu_with_erf(x, g):
    # the exact-erf GELU's derivative on a task whose contract is the tanh approximation
    n = x.shape[-1] // 2
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        y = F.gelu(xd[:, :n]) * xd[:, n:]
        (gx,) = torch.autograd.grad(y, xd, g.double())
    return [gx.to(x.dtype)]


def _flce_half_precision_logits(h, w, target, g):
    # every GEMM from operands rounded to 10 mantissa bits (what a TF32 tl.dot multiplies)
    with torch.enable_grad():
        hd = h.double().requires_grad_(True)
        wd = w.double().requires_grad_(True)
        loss = F.cross_entropy(hd.half().double() @ wd.half().double().T, target)
        gh, gw = torch.autograd.grad(loss, (hd, wd), g.double())
    return [gh.to(h.dtype), gw.to(h.dtype)]


def _bn_eval_mode(x, weight, mean, invstd, g):
    # the inference-mode backward: the batch statistics' own gradient terms left out
    gd = g.double()
    xhat = (x.double() - mean.double()[None, :, None, None]) * invstd.double()[None, :, None, None]
    gx = gd * (weight.double() * invstd.double())[None, :, None, None]
    return [gx.to(x.dtype), (gd * xhat).sum(dim=(0, 2, 3)).float(), gd.sum(dim=(0, 2, 3)).float()]


def _jsd_without_one_minus_beta(x, y, beta, g):
    log_m = torch.logaddexp(math.log(beta) + y.double(), math.log(1.0 - beta) + x.double())
    d = (g.double() / x.shape[0]) * torch.exp(x.double()) * (x.double() - log_m)
    return [d.to(x.dtype)]


NEAR_MISSES = [
    ("activation.hardtanh_backward", _hardtanh_closed_bounds),
    ("activation.prelu_backward", _prelu_zero_as_positive),
    ("loss.l1_backward", _l1_sign_of_zero_is_one),
    ("loss.cross_entropy_z_loss_backward", _ce_without_z_loss),
    ("loss.cross_entropy_z_loss_backward", _ce_mean_over_all_rows),
    ("activation.gelu_tanh_and_mul_backward", _geglu_with_erf),
    ("loss.fused_linear_cross_entropy_backward", _flce_half_precision_logits),
    ("normalization.batch_norm_train_backward", _bn_eval_mode),
    ("loss.jsd_backward", _jsd_without_one_minus_beta),
]


@pytest.mark.parametrize(("task_id", "answer"), NEAR_MISSES,
                         ids=[f"{t}-{a.__name__}" for t, a in NEAR_MISSES])
def test_a_near_miss_fails_and_the_reference_passes(suite, task_id, answer):
    reference_ok, caught = _fails(suite, task_id, answer)
    assert reference_ok
    assert caught, f"{answer.__name__} passes {task_id}"
