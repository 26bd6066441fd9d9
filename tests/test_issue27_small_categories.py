"""Twenty tasks of issue 27 in the smaller categories (ten of them backward): each meets the
suite bar (all eight shape tags, a tiny and a non-power-of-two CPU shape, a GPU shape, a cost
model, the "do not modify" promise), and its tolerance rejects the near miss a generator is most
likely to write (a boundary on the wrong side, a dropped term, a padding counted, a missing eps)
while the reference itself passes. The honest solutions are run by tests/test_suite_quality.py."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from conftest import ROOT

from kgb.suite.quality import TaskProbe, _cases
from kgb.tasks.cost_model import evaluate
from kgb.tasks.loader import load_suite

BACKWARD = (
    "pooling.max_pool1d_backward", "pooling.avg_pool1d_backward", "pooling.lp_pool2d_backward",
    "normalization.instance_norm_backward", "normalization.gemma_rms_norm_backward",
    "loss.margin_ranking_backward", "reduce.cumprod_backward", "math.cosine_similarity_backward",
    "convolution.grouped_conv2d_input_grad", "convolution.dilated_depthwise_conv1d_backward",
)
FORWARD = (
    "normalization.group_norm_silu_nhwc", "loss.margin_ranking", "loss.poly1_cross_entropy",
    "reduce.cumprod_rows", "reduce.logcumsumexp_rows", "math.cosine_similarity",
    "linear_algebra.syr2k", "linear_algebra.householder_apply",
    "linear_algebra.pairwise_distance", "index.segment_sum_csr",
)


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


@pytest.mark.parametrize("task_id", BACKWARD + FORWARD)
def test_task_meets_the_suite_bar(suite, task_id):
    task = suite[task_id]
    assert task.direction == ("backward" if task_id in BACKWARD else "forward")
    # Every shape tag, the tiny and non-pow2 CPU shapes and bytes > 0: tests/test_tasks.py's
    # test_every_task_has_the_eight_shape_categories_and_cpu_regimes, for every task.
    assert any(s.gpu_only for s in task.shapes)
    for shape in task.shapes:
        values = dict(shape.dims, itemsize=2)
        assert evaluate(task.flops, values) > 0  # the suite-wide test allows 0
    text = " ".join(task.description.lower().split())
    assert "do not modify" in text
    if "grad_w" in text or "grad_bias" in text or "mean must" in text:
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


def _max_pool1d_one_window(x, g, idx):
    # scatter (one writer wins) instead of a sum: an element winning two windows gets one
    out = torch.zeros(x.shape, dtype=torch.float64)
    out.scatter_(2, idx, g.double())
    return [out.to(x.dtype)]


def _avg_pool1d_counting_padding(x, g):
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        y = F.avg_pool1d(xd, 4, 2, 1, count_include_pad=True)
        (gx,) = torch.autograd.grad(y, xd, g.double())
    return [gx.to(x.dtype)]


def _lp_pool2d_average_not_sum(x, g):
    # the gradient of sqrt(mean of squares): what a kernel built from avg_pool2d writes
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        y = F.avg_pool2d(xd * xd, 3, 2).sqrt()
        (gx,) = torch.autograd.grad(y, xd, g.double())
    return [gx.to(x.dtype)]


def _instance_norm_eval_mode(x, w, g):
    # the statistics' own gradient terms left out: rstd * w * dy
    xd, gd = x.double(), g.double()
    mean = xd.mean(dim=(2, 3), keepdim=True)
    rstd = (xd.var(dim=(2, 3), unbiased=False, keepdim=True) + 1e-5).rsqrt()
    xhat = (xd - mean) * rstd
    gx = gd * rstd * w.double()[None, :, None, None]
    return [gx.to(x.dtype), (gd * xhat).sum(dim=(0, 2, 3)).to(x.dtype),
            gd.sum(dim=(0, 2, 3)).to(x.dtype)]


def _gemma_weight_not_offset(x, w, g):
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        wd = w.double().requires_grad_(True)
        y = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6) * wd
        gx, gw = torch.autograd.grad(y, (xd, wd), g.double())
    return [gx.to(x.dtype), gw.to(x.dtype)]


def _margin_ranking_strict(x1, x2, y, margin, g):
    # no gradient at t == 0 (a strict comparison)
    yf = y.double()
    t = -yf * (x1.double() - x2.double()) + margin
    d = torch.where(t > 0, -yf * (g.double() / x1.numel()), 0.0)
    return [d.to(x1.dtype), (-d).to(x1.dtype)]


def _cumprod_carried_in_bfloat16(x):
    out, run = torch.empty_like(x), torch.ones(x.shape[0], dtype=torch.bfloat16)
    for j in range(x.shape[1]):
        run = (run.float() * x[:, j].float()).to(torch.bfloat16)
        out[:, j] = run.to(x.dtype)
    return [out]


def _cumprod_backward_recomputed_in_input_dtype(x, out, g):
    # a suffix sum of grad_out * out whose running total is kept in the input dtype
    t = (g.float() * out.float()).to(x.dtype)
    acc = torch.zeros(x.shape[0], dtype=x.dtype)
    res = torch.empty_like(x)
    for j in reversed(range(x.shape[1])):
        acc = (acc.float() + t[:, j].float()).to(torch.bfloat16).to(x.dtype)
        res[:, j] = (acc.float() / x[:, j].float()).to(x.dtype)
    return [res]


def _logcumsumexp_without_max(x):
    return [torch.log(torch.cumsum(torch.exp(x.float()), -1)).to(x.dtype)]


def _cosine_without_eps_clamp(x1, x2):
    a, b = x1.double(), x2.double()
    cos = (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1))
    return [cos.to(x1.dtype)]


def _cosine_backward_without_cos_term(x1, x2, g):
    a, b, gd = x1.double(), x2.double(), g.double()[:, None]
    na, nb = a.norm(dim=-1, keepdim=True), b.norm(dim=-1, keepdim=True)
    return [(gd * b / (na * nb)).to(x1.dtype), (gd * a / (na * nb)).to(x1.dtype)]


def _pairwise_distance_without_eps(x1, x2):
    return [(x1.double() - x2.double()).norm(dim=-1).to(x1.dtype)]


def _syr2k_one_product_twice(a, b, c, alpha, beta):
    ad, bd, cd = a.double(), b.double(), c.double()
    full = alpha * 2 * (ad @ bd.T) + beta * cd
    return [torch.where(torch.ones_like(cd, dtype=torch.bool).triu(), full, cd).to(a.dtype)]


def _householder_assumes_orthogonal(a, v, tau):
    # tau recomputed as 2 / (v . v) instead of read: wrong where tau = 0 (the identity)
    ad, vd = a.double(), v.double()
    td = 2.0 / (vd * vd).sum(dim=1)
    w = torch.einsum("bm,bmn->bn", vd, ad)
    return [(ad - td[:, None, None] * vd[:, :, None] * w[:, None, :]).to(a.dtype)]


def _grouped_conv_flipped_kernel(x, w, g, groups):
    dx = torch.nn.grad.conv2d_input(x.shape, w.double().flip(2, 3), g.double(), stride=2,
                                    padding=1, groups=groups)
    return [dx.to(x.dtype)]


def _depthwise_conv1d_undilated(x, w, g):
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        wd = w.double().requires_grad_(True)
        y = F.conv1d(xd, wd, padding=1, dilation=1, groups=x.shape[1])
        gx, gw = torch.autograd.grad(y, (xd, wd), g.double())
    return [gx.to(x.dtype), gw.to(x.dtype)]


def _segment_sum_inclusive_end(src, offsets):
    csum = torch.cat([torch.zeros_like(src[:1], dtype=torch.float64),
                      torch.cumsum(src.double(), dim=0)])
    end = (offsets[1:] + 1).clamp(max=src.shape[0])
    return [(csum[end] - csum[offsets[:-1]]).to(src.dtype)]


def _poly1_without_epsilon(logits, target, epsilon):
    return [torch.where(target != -100, F.cross_entropy(logits.double(), target.clamp(min=0),
                                                        reduction="none"), 0.0).float()]


def _group_norm_silu_read_as_nchw(x, weight, bias, G):
    # groups taken as contiguous spans of the NHWC buffer (the NCHW kernel run unchanged)
    N, H, W, C = x.shape
    xd = x.double().reshape(N, C, H, W)
    y = F.silu(F.group_norm(xd, G, weight.double(), bias.double(), 1e-5))
    return [y.reshape(N, H, W, C).to(x.dtype)]


def _margin_ranking_sign_flipped(x1, x2, y, margin):
    return [F.margin_ranking_loss(x1.double(), x2.double(), -y.double(), margin=margin).float()]


NEAR_MISSES = [
    ("pooling.max_pool1d_backward", _max_pool1d_one_window),
    ("pooling.avg_pool1d_backward", _avg_pool1d_counting_padding),
    ("pooling.lp_pool2d_backward", _lp_pool2d_average_not_sum),
    ("normalization.instance_norm_backward", _instance_norm_eval_mode),
    ("normalization.gemma_rms_norm_backward", _gemma_weight_not_offset),
    ("loss.margin_ranking_backward", _margin_ranking_strict),
    ("reduce.cumprod_rows", _cumprod_carried_in_bfloat16),
    ("reduce.cumprod_backward", _cumprod_backward_recomputed_in_input_dtype),
    ("reduce.logcumsumexp_rows", _logcumsumexp_without_max),
    ("math.cosine_similarity", _cosine_without_eps_clamp),
    ("math.cosine_similarity_backward", _cosine_backward_without_cos_term),
    ("linear_algebra.pairwise_distance", _pairwise_distance_without_eps),
    ("linear_algebra.syr2k", _syr2k_one_product_twice),
    ("linear_algebra.householder_apply", _householder_assumes_orthogonal),
    ("convolution.grouped_conv2d_input_grad", _grouped_conv_flipped_kernel),
    ("convolution.dilated_depthwise_conv1d_backward", _depthwise_conv1d_undilated),
    ("index.segment_sum_csr", _segment_sum_inclusive_end),
    ("loss.poly1_cross_entropy", _poly1_without_epsilon),
    ("normalization.group_norm_silu_nhwc", _group_norm_silu_read_as_nchw),
    ("loss.margin_ranking", _margin_ranking_sign_flipped),
]


@pytest.mark.parametrize(("task_id", "answer"), NEAR_MISSES, ids=[t for t, _ in NEAR_MISSES])
def test_the_tolerance_rejects_the_near_miss(suite, task_id, answer):
    reference_ok, caught = _fails(suite, task_id, answer)
    assert reference_ok and caught
