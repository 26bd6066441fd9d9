"""Suite solutions that passed on the CPU interpreter and were incorrect on an H100 (run 20,
docs/suite-gpu.md): each cause is pinned here without a GPU, either in what Triton compiles for
sm_90 (its own compiler, as tests/test_gpu_compile.py does) or in a torch model of what the GPU
computes, judged by the task's own comparison.

Each compile runs in a fresh process without TRITON_INTERPRET: in the test session the
interpreter is on, and @triton.jit then builds interpreter functions."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest
import torch
from conftest import ROOT

_COMPILE = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
path, name, signature, constexprs, options = sys.argv[1], sys.argv[2], \\
    json.loads(sys.argv[3]), json.loads(sys.argv[4]), json.loads(sys.argv[5])
spec = importlib.util.spec_from_file_location("kernel_under_test", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
compiled = triton.compile(ASTSource(getattr(module, name), signature, constexprs=constexprs),
                          target=GPUTarget("cuda", 90, 32), options=options)
print(json.dumps({"ttgir": compiled.asm["ttgir"], "ptx": compiled.asm["ptx"]}))
"""


def _compile(task: str, kernel: str, signature: dict, constexprs: dict,
             options: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    env["TRITON_DEFAULT_FP_FUSION"] = "1"  # Triton 3.6's default on the GPU machines
    done = subprocess.run([sys.executable, "-c", _COMPILE,
                           str(ROOT / "tasks" / task / "solution.py"), kernel,
                           json.dumps(signature), json.dumps(constexprs),
                           json.dumps(options or {})],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _module(task: str, name: str):
    spec = importlib.util.spec_from_file_location(f"h1_{name}_{task.replace('/', '_')}",
                                                  ROOT / "tasks" / task / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_linear_attention_carries_its_state_outside_a_dot_accumulator():
    # `state += tl.dot(k^T, v)` compiles to tt.dot(k^T, v, state): the loop-carried state is
    # the dot's accumulator, one float32 rounding per time step; at S = 8192 that put 0.1% of o
    # past 1e-4 on an H100 (a torch model of it gave the GPU's rel_l2, 1.34e-6, to 3 digits).
    # Every dot here must start from a constant or from another dot of the same step.
    pointers = {p: "*fp32" for p in ("q_ptr", "k_ptr", "v_ptr", "o_ptr", "st_ptr")}
    asm = _compile("Fusion/linear_attention_chunked", "_linear_attn_chunk_kernel",
                   {**pointers, "S": "i32", "DK": "i32", "DV": "i32", "scale": "fp32",
                    "C": "constexpr", "BLOCK_K": "constexpr", "BLOCK_V": "constexpr"},
                   {"C": 32, "BLOCK_K": 128, "BLOCK_V": 64}, {"num_warps": 4})
    dots = re.findall(r"(%\S+) = tt\.dot (%\S+), (%\S+), (%\S+) :", asm["ttgir"])
    assert len(dots) == 4, asm["ttgir"][-3000:]
    results = {d[0] for d in dots}
    for _, _, _, acc in dots:
        assert acc.startswith("%cst") or acc in results, f"a dot accumulates into {acc}"
    # the compensation survives to the PTX (no reassociation folds it away)
    assert len(re.findall(r"\bsub\.f32", asm["ptx"])) >= 128


# (run 20's test_fp8_swiglu_mlp_dots_run_on_float16_not_fp8_tensor_cores held the float16
# widening; run 22 found it short of the bounds at the GPU shapes and replaced it: see
# test_fp8_swiglu_mlp_sums_exactly_on_integer_tensor_cores below)


def _fp22_gemm(codes: torch.Tensor, w: torch.Tensor, bits: int | None) -> torch.Tensor:
    """codes @ w.T as a Hopper fp8 wgmma chain sums it: exact products, each k = 32 step added
    to the running sum and the result truncated to `bits` mantissa bits (None: exact)."""
    wd = w.double()
    if bits is None:
        return (codes @ wd.T).float()
    acc = torch.zeros(codes.shape[0], w.shape[0], dtype=torch.float64)
    for k0 in range(0, codes.shape[1], 32):
        m, e = torch.frexp(acc + codes[:, k0:k0 + 32] @ wd[:, k0:k0 + 32].T)
        acc = torch.ldexp(torch.trunc(m * 2.0 ** (bits + 1)) / 2.0 ** (bits + 1), e)
    return acc.float()


@pytest.mark.parametrize("bits, passes", [(None, True), (13, False)])
def test_fp8_swiglu_mlp_tolerance_refuses_a_13_bit_accumulator(bits, passes):
    # the model of the failure: the same MLP with each GEMM summed in a 13-bit accumulator
    # flips h's codes at ties and is refused by the task's float32 bounds (as on the H100);
    # with exact sums it is the reference
    from kgb.judge.compare import compare_outputs
    from kgb.tasks.loader import load_suite

    task = load_suite(ROOT / "tasks")["fusion.fp8_per_tensor_swiglu_mlp"]
    ref = _module("Fusion/fp8_per_tensor_swiglu_mlp", "reference")
    inputs = _module("Fusion/fp8_per_tensor_swiglu_mlp", "inputs")
    x, w13, w13_scale, w2, w2_scale = inputs.make_inputs(
        {"T": 64, "DM": 256, "F": 512}, "float32", torch.Generator().manual_seed(5), "standard")
    xq, sx = ref._quant(x.float())
    gu = (_fp22_gemm(xq, w13, bits) * sx) * w13_scale
    g, u = gu[:, :512].double(), gu[:, 512:].double()
    hq, sh = ref._quant((g / (1.0 + torch.exp(-g)) * u).float())  # h as the reference has it
    y = ((_fp22_gemm(hq, w2, bits) * sh) * w2_scale).to(x.dtype)
    result = compare_outputs([y], [ref.reference(x, w13, w13_scale, w2, w2_scale)],
                             task.tolerance_for("float32"))
    assert result.passed == passes, result.message


def test_fp8_block_act_clamp_keeps_nan_when_compiled():
    # an Inf in x makes x / scale NaN: PyTorch's clamp (the reference) and the interpreter keep
    # it, compiled tl.minimum/tl.maximum (min.f32/max.f32) turned it into -448 on the H100
    asm = _compile("Quantization/fp8_block_act_1x128", "_act_quant_kernel",
                   {"x_ptr": "*fp16", "q_ptr": "*fp8e4nv", "scale_ptr": "*fp32", "K": "i32",
                    "G": "i32", "FP8_MAX": "constexpr", "GROUP": "constexpr"},
                   {"FP8_MAX": 448.0, "GROUP": 128}, {"num_warps": 1})
    mins = set(re.findall(r"\bmin[.\w]*\.f32", asm["ptx"]))
    assert mins and all(".NaN" in m for m in mins), mins


@pytest.mark.parametrize("dims", [{"M": 3, "K": 200}, {"M": 33, "K": 1000}])
def test_fp8_block_act_inputs_are_finite(dims):
    # the contract is finite x; its outlier group (x 1e3 on top of an outlier of 1e3) once
    # overflowed float16 to Inf in 43 of 300 seeds of the tiny shape
    inputs = _module("Quantization/fp8_block_act_1x128", "inputs")
    for seed in range(100 if dims["M"] < 10 else 10):  # the tiny shape is where Inf was common
        for dtype in ("float16", "bfloat16", "float32"):
            x, = inputs.make_inputs(dims, dtype, torch.Generator().manual_seed(seed), "outlier")
            assert torch.isfinite(x).all(), (seed, dtype)
            last = ((dims["K"] - 1) // 128) * 128
            assert x[-1, last:].abs().max() > 100  # the amplified group is still there


def _task_inputs(task: str, task_id: str, dims: dict, dtype: str, seed: int, mode: str):
    from kgb.tasks.loader import load_suite

    spec = load_suite(ROOT / "tasks")[task_id]
    gen = torch.Generator().manual_seed(seed)
    return spec, _module(task, "reference"), _module(task, "inputs").make_inputs(
        dims, dtype, gen, mode)


def test_mla_decode_float32_bounds_pass_pytorchs_own_float32_attention():
    # outlier latents make one product dominate a 576-term score dot; a float32 sum of it is
    # off by ~sqrt(n) roundings of that term where the softmax output cancels. PyTorch's own
    # float32 SDPA (the task's baseline) had 43 such misses beyond 4x their sensitivity here
    # (32 allowed) under the old atol 1e-5; an H100 run failed the solution the same way
    from kgb.judge.truth import compare_for_task

    task, ref, args = _task_inputs("Fusion/mla_decode_paged", "fusion.mla_decode_paged",
                                   {"B": 16, "H": 16, "DL": 512, "DR": 64, "BS": 64,
                                    "L": 4096}, "float32", 3, "outlier")
    expected = [ref.reference(*args)]
    honest = [ref.baseline(*args)]
    assert compare_for_task(task, ref, honest, expected, args, "float32").passed
    # p rounded to bfloat16 before the product with the latents: still far outside
    q, kv, tables, lens, dl, scale = args
    flat = kv.reshape(-1, kv.shape[-1])
    rounded = torch.empty_like(expected[0])
    for b in range(q.shape[0]):
        t = torch.arange(int(lens[b]))
        c = flat[tables[b].long()[t // kv.shape[1]] * kv.shape[1] + t % kv.shape[1]]
        p = torch.softmax((q[b] @ c.T) * scale, dim=-1).bfloat16().float()
        rounded[b] = p @ c[:, :dl]
    assert not compare_for_task(task, ref, [rounded], expected, args, "float32").passed


@pytest.mark.parametrize("name", ["w4a16_awq_gemm", "w4a16_gptq_gemm"])
def test_w4a16_outliers_leave_room_for_the_w_rounding_the_contract_allows(name):
    # awq_gemm rounds W to x's dtype before the dot (both descriptions allow it): with x
    # outliers of 1e3 that moved 1.1% of an H100's bfloat16 outputs past the bounds, more
    # than the float64 truth forgives (GPTQ's the same on the CPU: 4 of 4 seeds); with
    # outliers of 1e2 it passes, while a bfloat16 accumulation still fails
    from kgb.judge.truth import compare_for_task

    task, ref, args = _task_inputs(f"Quantization/{name}", f"quantization.{name}",
                                   {"M": 64, "K": 4096, "N": 4096}, "bfloat16", 2, "outlier")
    x, qweight, qzeros, scales = args
    expected = [ref.reference(*args)]
    w = ref._weight(qweight, qzeros, scales, torch.float32).bfloat16().float()
    awq = [(x.float() @ w).bfloat16()]
    assert compare_for_task(task, ref, awq, expected, args, "bfloat16").passed
    acc = torch.zeros(x.shape[0], w.shape[1])
    for k0 in range(0, x.shape[1], 64):
        acc = (acc + x[:, k0:k0 + 64].float() @ w[k0:k0 + 64]).bfloat16().float()
    assert not compare_for_task(task, ref, [acc.bfloat16()], expected, args, "bfloat16").passed


# --- run 21 (session 31, helper H2): chunk 2's fp8 GEMM, int8 groups and top-p ---------------

def _fp8_wgmma_chain(a: torch.Tensor, b: torch.Tensor, promote_every: int | None) -> torch.Tensor:
    """a @ b.T as an sm_90 e4m3 wgmma chain sums it (k = 32 an instruction): the products and
    the accumulator aligned to the largest exponent among them, each truncated to 13 bits below
    it, then summed; with promote_every, a fresh accumulator added to a float32 total that often
    (tl.dot's max_num_imprecise_acc). Unlike _fp22_gemm (sum, then truncate), this drops the low
    bits of equal products as the sum grows: the H100's 1.37% at [0, N-1] of the outlier case."""
    ad, bd = a.double(), b.double()
    acc = torch.zeros(a.shape[0], b.shape[0], dtype=torch.float64)
    total = torch.zeros_like(acc)
    for k0 in range(0, a.shape[1], 32):
        terms = torch.cat([ad[:, None, k0:k0 + 32] * bd[None, :, k0:k0 + 32], acc[..., None]], -1)
        _, e = torch.frexp(terms.abs().amax(-1, keepdim=True))
        ulp = torch.ldexp(torch.ones_like(terms[..., :1]), e - 14)
        acc = (torch.trunc(terms / ulp) * ulp).sum(-1).float().double()
        if promote_every is not None and (k0 + 32) % promote_every == 0:
            total, acc = (total.float() + acc.float()).double(), torch.zeros_like(acc)
    return (total.float() + acc.float()) if promote_every is not None else acc.float()


def test_fp8_wgmma_model_gives_the_h100s_miss_on_equal_products():
    # medium-float16-outlier, [0, 511]: 1024 products 448 x -448; the H100 gave -829 for
    # -840.5 (a miss of 11.3 against the truth: the sum 1.37% small); 12 or 14 bits give 1.65%
    # or 0.70%; promoted per instruction the sum is exact
    a = torch.full((1, 1024), 448.0)
    b = torch.full((1, 1024), -448.0)
    exact = -448.0 * 448.0 * 1024
    assert abs(float(_fp8_wgmma_chain(a, b, None)) / exact - 0.9866) < 5e-4
    assert float(_fp8_wgmma_chain(a, b, 32)) == exact


@pytest.mark.parametrize("promote_every, passes", [(None, False), (32, True), (128, True)])
def test_fp8_scaled_mm_bounds_refuse_an_unpromoted_fp8_accumulator(promote_every, passes):
    # the task's own comparison (with the float64 truth) on the outlier case: the chained
    # accumulator fails as on the H100, partial sums promoted to float32 pass
    from kgb.judge.truth import compare_for_task

    task, ref, args = _task_inputs("Quantization/fp8_scaled_mm", "quantization.fp8_scaled_mm",
                                   {"M": 4, "N": 64, "K": 1024}, "float16", 0, "outlier")
    a, b, scale_a, scale_b, bias = args
    acc = _fp8_wgmma_chain(a.float(), b.float(), promote_every)
    out = (acc * (scale_a * scale_b) + bias.float()[None, :]).to(bias.dtype)
    result = compare_for_task(task, ref, [out], [ref.reference(*args)], args, "float16")
    assert result.passed == passes, result.message


def test_fp8_scaled_mm_adds_each_fp8_wgmma_in_float32():
    # Triton's sm_90 default (max_num_imprecise_acc = 2**30) chains every e4m3 wgmma of the K
    # loop into one ~13-bit accumulator; the solution asks for a float32 add per instruction
    # (64 x 64 tile, 4 warps: 32 add.f32 a thread per wgmma, two wgmmas per K step)
    asm = _compile("Quantization/fp8_scaled_mm", "_fp8_scaled_mm_kernel",
                   {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "sa_ptr": "*fp32",
                    "sb_ptr": "*fp32", "bias_ptr": "*fp16", "out_ptr": "*fp16", "M": "i32",
                    "N": "i32", "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                    "BLOCK_K": "constexpr"}, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64},
                   {"num_warps": 4})
    assert set(re.findall(r"maxNumImpreciseAcc = (\d+)", asm["ttgir"])) == {"32"}
    wgmmas = re.findall(r"wgmma\.mma_async\.\S*?\.(f32\.\w+\.\w+)", asm["ptx"])
    assert set(wgmmas) == {"f32.e4m3.e4m3"}, wgmmas
    assert len(re.findall(r"\badd\.f32", asm["ptx"])) >= 32 * len(wgmmas)


@pytest.mark.parametrize("dims", [{"M": 3, "K": 200}, {"M": 33, "K": 1000}])
def test_int8_per_group_inputs_are_finite(dims):
    # an Inf in x makes its group's x / scale NaN: PyTorch's int8 cast gave 0 (the reference),
    # the H100's compiled min/max -127 (run 21). The contract is finite x; the amplified group
    # once overflowed float16 in 16 of 100 tiny seeds
    inputs = _module("Quantization/int8_per_group", "inputs")
    for seed in range(100 if dims["M"] < 10 else 10):
        for dtype in ("float16", "bfloat16", "float32"):
            x, = inputs.make_inputs(dims, dtype, torch.Generator().manual_seed(seed), "outlier")
            assert torch.isfinite(x).all(), (seed, dtype)
            last = ((dims["K"] - 1) // 128) * 128
            assert x[-1, last:].abs().max() > 100  # the amplified group is still there


def test_top_p_sampling_kernel_decides_the_nucleus_without_float_arithmetic():
    # run 21: the sampling kernel recomputed w = exp(x / T - max) and kept w >= the cut found
    # on the nucleus kernel's w; ptxas fused x * rcp(T) - max into one FFMA there and rounded
    # x / T first here (x / T is also the score), so the boundary token's w came out a few ulps
    # apart and was dropped in 5 of 20 rows of the H100 probe (a model: 1 row in 6). Now the
    # cut is a logit's order key: the sampling kernel computes no exponential at all
    asm = _compile("Random/top_p_sampling", "_top_p_sample_kernel",
                   {"logits_ptr": "*fp32", "temp_ptr": "*fp32", "cut_ptr": "*i32",
                    "out_ptr": "*i64", "V": "i32", "S": "i32", "stride_r": "i32",
                    "seed": "i32", "BLOCK_S": "constexpr", "BLOCK_V": "constexpr"},
                   {"BLOCK_S": 16, "BLOCK_V": 256}, {"num_warps": 4})
    assert "math.exp" not in asm["ttgir"] and "ex2." not in asm["ptx"]


_NUCLEUS = """
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from kgb.worker.interpreter_fixes import apply
apply()
import importlib.util
def load(name):
    spec = importlib.util.spec_from_file_location(name, sys.argv[2] + "/" + name + ".py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
inputs, solution = load("inputs"), load("solution")
found = []
for seed, dtype, mode in json.loads(sys.argv[3]):
    logits, temp, top_p, _, _ = inputs.make_inputs({"M": 16, "V": 256, "S": 1}, dtype,
                                                   torch.Generator().manual_seed(seed), mode)
    cut = torch.empty(16, dtype=torch.int32)
    solution._nucleus_kernel[(16,)](logits, temp, top_p, torch.empty(16), cut, 256, 256,
                                    BLOCK_V=1024)
    found.append(cut.tolist())
print(json.dumps(found))
"""


def test_top_p_nucleus_cut_is_the_laws_boundary_logit():
    # the cut the sampling kernel compares against is the order key of the law's least
    # probable kept logit, on every row (standard, outlier: logits in the thousands, rows of
    # equal logits; top_p = 1 rows keep every finite logit)
    # 32 rows: 7 at top_p = 1, 3 of all-equal logits near 1000 (bfloat16, outlier)
    cases = [(0, "float32", "standard"), (1, "bfloat16", "outlier")]
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _NUCLEUS, str(ROOT),
                           str(ROOT / "tasks" / "Random" / "top_p_sampling"), json.dumps(cases)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    cuts = json.loads(done.stdout.strip().splitlines()[-1])
    inputs = _module("Random/top_p_sampling", "inputs")
    reference = _module("Random/top_p_sampling", "reference")
    for (seed, dtype, mode), cut in zip(cases, cuts):
        args = inputs.make_inputs({"M": 16, "V": 256, "S": 1}, dtype,
                                  torch.Generator().manual_seed(seed), mode)
        nucleus = reference._law(args)[2] > 0
        x = args[0].float()
        bits = torch.where(x == 0, torch.zeros_like(x), x).view(torch.int32)
        keys = bits ^ ((bits >> 31) & 0x7FFFFFFF)
        assert torch.equal(keys >= torch.tensor(cut)[:, None], nucleus), (seed, dtype, mode)


# --- run 21 (session 31, helper H1): float32 scans and Lion's sign ------------------------------

def _interpreted(monkeypatch, task: str):
    """The task's solution built for the Triton interpreter (its kernels run on the CPU here)."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    return _module(task, "solution")


def _softplus(s: torch.Tensor, log1p: bool) -> torch.Tensor:
    """The solutions' softplus in float32: log(1 + e) (before) or log(w) * e / (w - 1)."""
    e = torch.exp(s.clamp(max=20.0))
    w = 1.0 + e
    small = torch.where(w == 1.0, e, torch.log(w) * (e / (w - 1.0))) if log1p else torch.log(w)
    return torch.where(s > 20.0, s, small)


def _ssd_scan_model(args: tuple, log1p: bool, state=torch.float32,
                    step=torch.float32) -> torch.Tensor:
    """mamba2_ssd_scan's kernel in float32: the state update one FMA a step, as compiled
    (`state`: the dtype the carried state is rounded to each step; `step`: the step size's)."""
    x, dt, A, Bm, Cm, D, bias = args
    d = _softplus(dt + bias, log1p).to(step).float()
    decay = torch.exp(d * A)
    h = torch.zeros(x.shape[0], x.shape[2], x.shape[3], Bm.shape[3])
    ys = []
    for t in range(x.shape[1]):
        u = (d[:, t, :, None] * x[:, t])[..., None] * Bm[:, t, :, None, :]  # G = 1
        h = (decay[:, t, :, None, None].double() * h.double() + u.double()).to(state).float()
        ys.append((h * Cm[:, t, :, None, :]).sum(-1))
    return torch.stack(ys, 1) + D[:, None] * x


@pytest.mark.parametrize("log1p, state, step, passes", [
    (False, torch.float32, torch.float32, True), (True, torch.float32, torch.float32, True),
    (True, torch.bfloat16, torch.float32, False), (True, torch.float32, torch.bfloat16, False),
    (True, torch.float32, torch.float16, False)])
def test_mamba2_scan_passes_mamba_ssms_softplus_and_fails_a_bfloat16_state(log1p, state, step,
                                                                          passes):
    # log(1 + e) in float32 rounds 1 + e: dt ~ 1e-3 loses 6e-5 of itself every step, and over
    # L = 2048 that put y 9.4x an accurate float32 result's error, max 3.1e-5 (an H100 failed
    # the old 1e-5 atol). mamba_ssm's and vLLM's Triton kernels compute softplus so: the float32
    # atol is 5e-5 and such a kernel passes; a state carried in bfloat16, or a step size
    # rounded to 16 bits, does not
    from kgb.judge.truth import compare_for_task

    task, ref, args = _task_inputs("Fusion/mamba2_ssd_scan", "fusion.mamba2_ssd_scan",
                                   {"B": 1, "L": 2048, "H": 8, "P": 16, "G": 1, "N": 128},
                                   "float32", 0, "standard")
    result = compare_for_task(task, ref, [_ssd_scan_model(args, log1p, state, step)],
                              [ref.reference(*args)], args, "float32")
    assert result.passed == passes, result.message


@pytest.mark.parametrize("task, entry", [
    ("Fusion/mamba2_ssd_scan", "ssd"), ("Fusion/selective_scan", "selective")])
def test_scan_solutions_step_size_is_accurate(monkeypatch, task, entry):
    # one step from a zero state with D = 0 and a gate of 1: y / (x B.C) is the solution's own
    # softplus(dt + bias); at dt ~ 1e-3..1e-1 it must be float32-accurate (log(1 + e) was 6e-5
    # off at dt ~ 1e-3: what an H100 run of selective_scan failed by, 4.18x an honest error)
    solution = _interpreted(monkeypatch, task)
    n, gen = 64, torch.Generator().manual_seed(0)
    dt_true = torch.exp(torch.empty(n, dtype=torch.float64).uniform_(-7.0, -2.3, generator=gen))
    bias = (dt_true + torch.log(-torch.expm1(-dt_true))).float()  # softplus^-1, rounded
    want = torch.nn.functional.softplus(bias.double())
    x, bc = torch.ones(n), torch.ones(4)
    if entry == "ssd":  # x [1, 1, H, 16], dt [1, 1, H], B, C [1, 1, 1, 8]: H = n heads
        y = solution.run(torch.ones(1, 1, n, 16), torch.zeros(1, 1, n), -torch.ones(n),
                         torch.ones(1, 1, 1, 8) / 8 ** 0.5, torch.ones(1, 1, 1, 8) / 8 ** 0.5,
                         torch.zeros(n), bias)[0, 0, :, 0]
    else:  # u [1, DI, 1], delta, z [1, DI, 1] (z = 30: silu = 30), B, C [1, 4, 1]
        y = solution.run(x[None, :, None], torch.zeros(1, n, 1), -torch.ones(n, 4),
                         bc[None, :, None] / 2, bc[None, :, None] / 2, torch.zeros(n),
                         torch.full((1, n, 1), 30.0), bias)[0, :, 0] / 30.0
    assert float(((y.double() - want) / want).abs().max()) < 1e-6


def _exp2_ulps_off(monkeypatch, ulps: int, up: bool) -> None:
    """The interpreter's tl.exp2 `ulps` float32 ulps off, up or down: sm_90 compiles it to
    ex2.approx.f32, which is not correctly rounded."""
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder

    def off(x):
        y = np.exp2(x)
        for _ in range(ulps):
            y = np.nextafter(y, np.asarray(np.inf if up else 0.0, dtype=y.dtype))
        return y

    monkeypatch.setattr(InterpreterBuilder, "create_exp2",
                        lambda self, arg: self.unary_op(arg, off))


@pytest.mark.parametrize("up", [True, False])
def test_retention_carried_decay_survives_an_inexact_exp2(monkeypatch, up):
    # the state was decayed by a float32 exp2(lg * 32) every chunk: the same error in the same
    # factor 64 times here (256 at the GPU's S = 8192). With exp2 two ulps off the old kernel
    # was 7x an honest float32 result's error (rel_l2 2.3e-6; the H100 2.67e-6), either way;
    # g^L = 1 + expm1(...) by Taylor and a compensated carry pass
    from kgb.judge.truth import compare_for_task

    solution = _interpreted(monkeypatch, "Fusion/retention_chunked")
    _exp2_ulps_off(monkeypatch, 2, up)
    task, ref, args = _task_inputs("Fusion/retention_chunked", "fusion.retention_chunked",
                                   {"B": 1, "H": 8, "S": 2048, "DK": 32, "DV": 32}, "float32",
                                   0, "standard")
    result = compare_for_task(task, ref, list(solution.run(*args)), list(ref.reference(*args)),
                              args, "float32")
    assert result.passed, result.message


def _lion_c_variants(g: torch.Tensor, m: torch.Tensor) -> dict[str, torch.Tensor]:
    """c = 0.9 m + 0.1 g as honest float32 kernels compute it: an FMA or not, 1 - beta1 rounded
    once (0.1f, lion-pytorch's alpha) or computed in float32 (1 - 0.9f = 0.100000024)."""
    b1, a_host, a_dev = 0.8999999761581421, 0.10000000149011612, 0.10000002384185791
    g, m = g.float(), m.float()  # every input upcast, as the contract says
    bm = m * b1
    return {f"{form} alpha={a:.9g}": c
            for a in (a_host, a_dev)
            for form, c in (("mul+add", bm + g * a),
                            ("fma(a,g,b1 m)", (a * g.double() + bm.double()).float()),
                            ("fma(b1,m,a g)", (b1 * m.double() + (g * a).double()).float()))}


def test_lion_inputs_keep_c_clear_of_rounding_at_zero():
    # where |c| is within float32 rounding of 0 its sign is the arithmetic's choice: an H100
    # gave 1 of 45M elements of p 2 lr off. Over 4 seeds of that case (180M elements) 10 signs
    # of such honest forms disagreed with the float64 truth, all at |c| <= 1.4e-7 of the
    # terms' size. Near-ties made on purpose: every one is near before, none after, and then
    # every honest form gives the float64 sign
    inputs = _module("Optimizer/lion", "inputs")
    gen = torch.Generator().manual_seed(0)
    m = torch.randn(200_000, generator=gen) * 0.5
    g = (-9.0 * m.double() * (1 + 1e-7 * torch.randn(200_000, generator=gen,
                                                      dtype=torch.float64))).float()
    m[:1000], g[:1000] = 0.0, 0.0  # the exact zeros stay
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        gd, md = g.to(dtype), m.to(dtype)
        def near(gg, mm):
            c = 0.9 * mm.double() + 0.1 * gg.double()
            size = 0.9 * mm.double().abs() + 0.1 * gg.double().abs()
            return ((gg != 0) | (mm != 0)) & (c.abs() <= inputs.NEAR_ZERO * size)

        assert int(near(gd, md).sum()) > 10_000
        cleared = inputs._clear_of_zero(gd, md)
        assert not near(gd, cleared).any() and (cleared[:1000] == 0).all()
        truth = torch.sign(0.9 * cleared.double() + 0.1 * gd.double())
        for name, c in _lion_c_variants(gd, cleared).items():
            assert (torch.sign(c) == truth).all(), (dtype, name)


def test_lion_wrong_directions_still_fail_on_cleared_inputs():
    # the clearing moves ~13 elements of 45M: sign(g), or c with beta2's weights, still fail
    from kgb.judge.inplace import as_judged
    from kgb.judge.truth import compare_for_task

    task, ref, args = _task_inputs("Optimizer/lion", "optimizer.lion", {"M": 128, "N": 1024},
                                   "float32", 0, "standard")
    ref = as_judged(ref, task.inplace)
    p, g, m = args
    expected = list(ref.reference(*args))
    m_new = (0.99 * m.double() + 0.01 * g.double()).float()
    assert compare_for_task(task, ref, [(p * (1 - 1e-5) - 1e-4 * torch.sign(
        0.9 * m + 0.1 * g)), m_new], expected, args, "float32").passed
    for c in (g, 0.99 * m + 0.01 * g):
        wrong = p * (1 - 1e-5) - 1e-4 * torch.sign(c)
        assert not compare_for_task(task, ref, [wrong, m_new], expected, args,
                                    "float32").passed


# --- run 21 (session 31, helper H3): a dominant key in attention backward ---------------------

@pytest.mark.parametrize("ulps", [0, 2, -2])
def test_swa_dq_dominant_key_does_not_cancel_against_a_rounded_delta(monkeypatch, ulps):
    # the outlier inputs' key of 50s holds ~all of some rows' mass: dP - delta there cancels to
    # a few ulps of dP, and delta = sum P dP rounded at dP's size left its rounding in dS times
    # that key (the H100: whole rows 2% off, 64 of 25600 elements at multi-block). The old
    # kernel failed this case here exactly (seed 2) and with exp2 two ulps off either way
    # (ex2.approx.f32 on sm_90); delta taken relative to the top key's dP passes all three
    from kgb.judge.truth import compare_for_task

    solution = _interpreted(monkeypatch, "Fusion/sliding_window_attention_backward_dq")
    if ulps:
        _exp2_ulps_off(monkeypatch, abs(ulps), ulps > 0)
    task, ref, args = _task_inputs("Fusion/sliding_window_attention_backward_dq",
                                   "fusion.sliding_window_attention_backward_dq",
                                   {"B": 1, "H": 2, "S": 200, "D": 64, "W": 96}, "float32", 2,
                                   "outlier")
    result = compare_for_task(task, ref, [solution.run(*args)], [ref.reference(*args)], args,
                              "float32")
    assert result.passed, result.message


_COMPILE_KEYS = """
import json, sys
from pathlib import Path
sys.path.insert(0, "scripts")
from aot_check import Compiler, _meta_mode
from kgb.runner.plan import plan_cases
from kgb.tasks.casegen import load_module, make_generator, relayout
from kgb.tasks.loader import load_suite
task = load_suite(Path("tasks"))[sys.argv[1]]
compiler = Compiler(90, upto="ttir")
compiler.compile_upto = lambda source, options: 0  # Triton's own binding and key; no compile
restore = compiler.install()
inputs = load_module(task.inputs_path, "keys_inputs")
entry = getattr(load_module(task.solution_path, "keys_solution"), task.entry)
for case in plan_cases(task, "cuda", 0):
    with _meta_mode():
        args = inputs.make_inputs(case.shape.as_dict(), case.dtype, make_generator("cpu", 0),
                                  case.mode)
        entry(*(relayout(a, case.layout) if i in task.strided_inputs and
                case.layout != "contiguous" else a for i, a in enumerate(args)))
restore()
print(json.dumps([len(compiler.done), sum("*fp32" in key[2] for key in compiler.done)]))
"""


def test_conv2d_channels_last_gpu_job_compiles_little():
    # its GPU job never finished in a ~500 s call (twice): 48 cases bound to 30 distinct
    # compilations (sizes specialized per shape), 18 of them float32 FMA dots of BLOCK_C = 32
    # (18432 FMAs of PTX, 13.8 s of CPU each with Triton 3.6 for sm_90): ~300 s of compiling.
    # Sizes unspecialized and BLOCK_C = 16 (6.5 s): 22, 14 of them float32
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", _COMPILE_KEYS,
                           "convolution.conv2d_channels_last"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    keys, float32 = json.loads(done.stdout.strip().splitlines()[-1])
    assert keys <= 22 and float32 <= 14, (keys, float32)


def test_decode_attention_scores_are_short_independent_fma_chains():
    # a float32 tl.dot on sm_90 is one FMA chain over K: q's outliers make one product of a
    # 128-term score dominate, and 128 roundings at its size put 47 outputs of an H100 run
    # beyond 4x their sensitivity (32 allowed). A torch model of that chain gave 7 such misses
    # in 16 sequences (0.44 a sequence, the H100 0.73); four independent chains of 32 summed
    # after gave 0. The four score dots must each start from 0, not from the previous one
    # (Triton folds `s + tl.dot(a, b)` into tt.dot(a, b, s): one chain again)
    pointers = {p: "*fp32" for p in ("q_ptr", "kn_ptr", "vn_ptr", "kc_ptr", "vc_ptr", "o_ptr")}
    asm = _compile("Fusion/decode_attention_kv_append", "_decode_append_kernel",
                   {**pointers, "len_ptr": "*i32", "H": "i32", "HKV": "i32", "SMAX": "i32",
                    "D": "i32", "scale": "fp32", "BLOCK_H": "constexpr", "BLOCK_N": "constexpr",
                    "BLOCK_D": "constexpr", "CHUNK_D": "constexpr"},
                   {"BLOCK_H": 16, "BLOCK_N": 64, "BLOCK_D": 128, "CHUNK_D": 32},
                   {"num_warps": 4})
    # (the type printed first is the left operand's: [16, 32] q chunks, [16, 64] p for p @ v)
    dots = re.findall(r"= tt\.dot \S+, \S+, (%\S+)[^:]*: tensor<(\d+)x(\d+)", asm["ttgir"])
    scores = [acc for acc, rows, k in dots if (rows, k) == ("16", "32")]
    assert len(scores) == 4 and len(dots) == 5, dots
    assert all(acc.startswith("%cst") for acc in scores), scores


# --- run 22 (session 34, helper H2): an fp8 MLP's re-quantized h, MLA's 576-long score -------

def test_fp8_swiglu_mlp_sums_exactly_on_integer_tensor_cores():
    # run 22: with the float16 widening (run 20's fix) 12 of 54 GPU cases still failed, every
    # large one: h is quantized again with one scale for the whole tensor, and a code of h
    # that rounds the other way at a tie moves its row of y by up to ~0.03. A float16 wgmma
    # accumulates toward zero (a torch model of it: 8.7e-4 of y outside at llama2-7b float32,
    # the H100 7.2e-4), a float32 sum still flips codes (2.6e-4), and so do div.full.f32 and
    # ex2.approx. The sums are now exact (int8 digits of code * 2^9, nine s8 wgmmas a K block,
    # combined in int64 and rounded once), silu is evaluated in float64, divisions are div.rn
    sizes = {"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32}
    options = {"num_warps": 4, "num_stages": 3}
    task = "Fusion/fp8_per_tensor_swiglu_mlp"
    common = {"M": "i32", "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
              "BLOCK_K": "constexpr"}
    gate_up = _compile(task, "_gate_up_kernel",
                       {"xq_ptr": "*u8", "sx_ptr": "*fp32", "w_ptr": "*u8", "ws_ptr": "*fp32",
                        "h_ptr": "*fp32", "hmax_ptr": "*fp32", "F": "i32", **common},
                       sizes, options)
    down = _compile(task, "_down_kernel",
                    {"hq_ptr": "*u8", "sh_ptr": "*fp32", "w_ptr": "*u8", "ws_ptr": "*fp32",
                     "y_ptr": "*fp32", "N": "i32", **common}, sizes, options)
    for asm in (gate_up, down):
        kinds = set(re.findall(r"wgmma\.mma_async\.\S*?\.(\w+\.\w+\.\w+)\s", asm["ptx"]))
        assert kinds == {"s32.s8.s8"}, kinds
        assert "cvt.rn.f32.s64" in asm["ptx"]  # the exact sum rounded once
    assert not re.search(r"ex2\.approx|div\.full|div\.approx", gate_up["ptx"])
    quant = _compile(task, "_quantize_kernel", {"x_ptr": "*fp32", "q_ptr": "*fp8e4nv",
                                                "scale_ptr": "*fp32", "n": "i32",
                                                "BLOCK": "constexpr"}, {"BLOCK": 1024},
                     {"num_warps": 4})
    scale = _compile(task, "_scale_kernel", {"partial_ptr": "*fp32", "scale_ptr": "*fp32",
                                             "num_partials": "i32", "BLOCK": "constexpr"},
                     {"BLOCK": 128}, {"num_warps": 4})
    for asm in (quant, scale):
        assert "div.rn.f32" in asm["ptx"] and "div.full" not in asm["ptx"]


_BITS = """
import importlib.util, json, sys
import torch
from kgb.worker import interpreter_fixes
interpreter_fixes.apply()  # as the candidate worker does: e4m3 casts round as the GPU's
folder, dims, dtype = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
def load(name):
    spec = importlib.util.spec_from_file_location("bits_" + name, folder + "/" + name + ".py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
solution, reference, inputs = load("solution"), load("reference"), load("inputs")
args = inputs.make_inputs(dims, dtype, torch.Generator().manual_seed(3), "outlier")
got, expected = solution.run(*args), reference.reference(*args)
print(int((got != expected).sum()))
"""


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_fp8_swiglu_mlp_solution_gives_the_references_bits(dtype):
    # the contract is now exact up to y's own roundings: sums exact, h rounded once, divisions
    # correctly rounded. The interpreted solution gives the reference's y bit for bit (with
    # its old float32 sums of float16 codes 1326 of 17600 float32 elements differed here)
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _BITS,
                           str(ROOT / "tasks" / "Fusion" / "fp8_per_tensor_swiglu_mlp"),
                           json.dumps({"T": 16, "DM": 1100, "F": 300}), dtype],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "0", done.stdout[-500:]


def test_fp8_swiglu_mlp_one_flipped_code_of_h_is_beyond_the_bounds():
    # why the contract asks for exact sums: one code of h rounded the other way (one e4m3
    # step) at a large |h| moves its row of y beyond the float32 bounds, while a flipped code
    # of the smallest size stays within them (the bounds are not tighter than y's rounding)
    from kgb.judge.compare import compare_outputs

    task, ref, args = _task_inputs("Fusion/fp8_per_tensor_swiglu_mlp",
                                   "fusion.fp8_per_tensor_swiglu_mlp",
                                   {"T": 128, "DM": 256, "F": 512}, "float32", 1, "standard")
    x, w13, w13_scale, w2, w2_scale = args
    xq, sx = ref._quant(x.float())
    gu = ref._gemm(xq, sx, w13, w13_scale)
    g, u = gu[:, :512].double(), gu[:, 512:].double()
    hq, sh = ref._quant((g / (1.0 + torch.exp(-g)) * u).float())
    expected = ref.reference(*args)
    assert torch.equal(ref._gemm(hq, sh, w2, w2_scale), expected)
    bits = hq.float().to(torch.float8_e4m3fn).view(torch.uint8).flatten()  # exact codes
    magnitude = hq.abs().flatten()
    results = []
    for at, step in ((int(magnitude.argmax()), -1),  # 448 -> 416 (one e4m3 step)
                     (int(torch.where(magnitude > 0, magnitude, 1e9).argmin()), 1)):
        flipped = bits.clone()
        flipped[at] += step
        codes = flipped.view(torch.float8_e4m3fn).view_as(hq).double()
        assert (codes != hq).sum() == 1
        y = ref._gemm(codes, sh, w2, w2_scale)
        results.append(compare_outputs([y], [expected], task.tolerance_for("float32")).passed)
    assert results == [False, True], results


def test_mla_decode_scores_are_short_independent_fma_chains():
    # run 22: a float32 tl.dot on sm_90 is one FMA chain over K; the score was one chain of
    # 576 (the latent dot then the rope dot accumulating into it), and outlier latents (x1e2)
    # make one product dominate: the H100 put 98 outputs of deepseek-v3-tp8 float32 outlier
    # beyond 4x their sensitivity (52 allowed). A torch model of that chain: 110 (seed 0,
    # max 4.7e-3, rel_l2 3.0e-6; the H100 98, 4.1e-3, 2.9e-6); nine chains of 64 summed after:
    # passes. All nine score dots must start from 0 (Triton folds s + tl.dot(a, b) into one)
    asm = _compile("Fusion/mla_decode_paged", "_mla_decode_kernel",
                   {"q_ptr": "*fp32", "c_ptr": "*fp32", "bt_ptr": "*i32", "lens_ptr": "*i32",
                    "o_ptr": "*fp32", "H": "i32", "DL": "i32", "DR": "i32", "BS": "i32",
                    "MAXB": "i32", "scale": "fp32", "BLOCK_H": "constexpr",
                    "BLOCK_N": "constexpr", "BLOCK_DL": "constexpr", "BLOCK_DR": "constexpr",
                    "CHUNK_D": "constexpr"},
                   {"BLOCK_H": 16, "BLOCK_N": 32, "BLOCK_DL": 512, "BLOCK_DR": 64,
                    "CHUNK_D": 64}, {"num_warps": 4, "num_stages": 2})
    dots = re.findall(r"= tt\.dot \S+, \S+, (%\S+)[^:]*: tensor<(\d+)x(\d+)", asm["ttgir"])
    scores = [acc for acc, rows, k in dots if (rows, k) == ("16", "64")]
    assert len(scores) == 9 and len(dots) == 10, dots
    assert all(acc.startswith("%cst") for acc in scores), scores


# --- run 22 (session 34, helper H1): W8A8 int8 codes that flip at ties ------------------------

def _cuda_scalar_division(monkeypatch) -> None:
    """Tensor / Python scalar as PyTorch computes it on CUDA (BinaryDivTrueKernel.cu: a CPU
    scalar divisor becomes a * (1 / b), the reciprocal rounded in float32), on the CPU."""
    divide = torch.Tensor.__truediv__

    def as_on_cuda(a, b):
        if isinstance(b, (int, float)) and a.dtype == torch.float32:
            return a * float(torch.tensor(1.0) / torch.tensor(float(b)))
        return divide(a, b)

    monkeypatch.setattr(torch.Tensor, "__truediv__", as_on_cuda)


def _w8a8_swiglu_sm90_model(x, w13, w13_scale, w2, w2_scale) -> torch.Tensor:
    """The run-22 solution's arithmetic as sm_90 ran it (Triton 3.6.0 SASS): s = amax *
    float32(1/127) (div.full by a constant folded to FMUL), z / s = z * rcp(s) (div.full.f32:
    MUFU.RCP then FMUL; the reciprocal taken correctly rounded here), tl.exp as mul by log2(e)
    then ex2 (2^t rounded once here), silu's division a reciprocal times g."""
    def quant(z):
        s = z.abs().amax(dim=1, keepdim=True) * float(torch.tensor(1.0) / torch.tensor(127.0))
        safe = torch.where(s > 0, s, torch.ones_like(s))
        return torch.round((z * (1.0 / safe.double()).float()).clamp(-127, 127)), s

    def gemm(q, s, w, ws):
        return ((q.double() @ w.double().T).float() * s) * ws[None, :]

    f = w13.shape[0] // 2
    xq, sx = quant(x.float())
    gu = gemm(xq, sx, w13, w13_scale)
    g, u = gu[:, :f], gu[:, f:]
    e = torch.exp2((-g * float(torch.tensor(1.4426950408889634))).double()).float()
    h = g * (1.0 / (1.0 + e).double()).float() * u
    hq, sh = quant(h)
    return gemm(hq, sh, w2, w2_scale).to(x.dtype)


def test_w8a8_swiglu_mlp_model_of_sm90s_arithmetic_fails_as_the_h100_did():
    # run 22: 22 of 48 cases failed on an H100 (max errors 0.13-0.72): every float16 and
    # bfloat16 case of small, odd and medium but two, no float32 case below llama2. The model
    # above, judged by the task over seeds 0-9 of the old reference: small/odd/medium bfloat16
    # fail in 52 of 60 cases, float16 in 18 of 60, float32 in 1 of 60 (the H100: 6 of 6, 4 of
    # 6, 0 of 6); at 4 x 64-row slices of llama2-7b, scaled to its 4096 rows, ~47000 float32
    # elements outside (H100 32952), ~624000 float16 (494721), ~335000 bfloat16 (280441)
    from kgb.judge.truth import compare_for_task

    failed = []
    for dims in ({"T": 64, "DM": 64, "F": 64}, {"T": 128, "DM": 256, "F": 512}):
        task, ref, args = _task_inputs("Fusion/w8a8_int8_swiglu_mlp",
                                       "fusion.w8a8_int8_swiglu_mlp", dims, "bfloat16", 0,
                                       "standard")
        expected = [ref.reference(*args)]
        model = compare_for_task(task, ref, [_w8a8_swiglu_sm90_model(*args)], expected, args,
                                 "bfloat16")
        failed.append(not model.passed and model.max_abs > 0.1)
    assert failed == [True, True]


def test_w8a8_swiglu_mlp_reference_is_the_same_with_cudas_scalar_division(monkeypatch):
    # the reference ran on the H100 too, where `amax / 127.0` is amax * float32(1/127): one
    # ulp off the CPU's quotient at ~4.5% of rows. At bfloat16 x, 127 x / max|x| is often a
    # .5 tie, and a tie's code followed the scale's last bit; one flipped code of x re-rounds
    # its row of h. The old reference against itself with CUDA's division failed medium
    # bfloat16 in 5 of 5 seeds (up to 0.31 off). Now both divisions are correctly rounded on
    # every device (a tensor divisor) and h is rounded once from float64
    _, ref, args = _task_inputs("Fusion/w8a8_int8_swiglu_mlp", "fusion.w8a8_int8_swiglu_mlp",
                                {"T": 128, "DM": 256, "F": 512}, "bfloat16", 0, "standard")
    on_cpu = ref.reference(*args)
    _cuda_scalar_division(monkeypatch)
    assert torch.equal(ref.reference(*args), on_cpu)


def test_w8a8_swiglu_mlp_codes_are_correctly_rounded_on_sm90():
    # the quotients z / s and s = amax / 127 are div.rn.f32 (Triton's `/` is div.full.f32), and
    # silu(g) * u is evaluated in float64 (no ex2.approx, no div.full) and rounded once
    task = "Fusion/w8a8_int8_swiglu_mlp"
    quant = _compile(task, "_quant_rows_kernel",
                     {"z_ptr": "*fp32", "amax_ptr": "*fp32", "n_amax": "i32", "q_ptr": "*i8",
                      "s_ptr": "*fp32", "C": "i32", "HAS_AMAX": "constexpr",
                      "BLOCK": "constexpr"}, {"HAS_AMAX": True, "BLOCK": 256},
                     {"num_warps": 4})
    assert "div.rn.f32" in quant["ptx"] and "div.full" not in quant["ptx"]
    gemm = _compile(task, "_int8_gemm_kernel",
                    {"a_ptr": "*i8", "sa_ptr": "*fp32", "w_ptr": "*i8", "sw_ptr": "*fp32",
                     "o_ptr": "*fp32", "amax_ptr": "*fp32", "M": "i32", "N": "i32",
                     "K": "i32", "F": "i32", "SWIGLU": "constexpr", "BLOCK_M": "constexpr",
                     "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
                    {"SWIGLU": True, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
                    {"num_warps": 4, "num_stages": 3})
    assert not re.search(r"ex2\.approx|div\.full|div\.approx", gemm["ptx"])
    assert "div.rn.f64" in gemm["ptx"]
    kinds = set(re.findall(r"wgmma\.mma_async\.\S*?\.(\w+\.\w+\.\w+)\s", gemm["ptx"]))
    assert kinds == {"s32.s8.s8"}, kinds


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("name, dims", [
    ("w8a8_int8_swiglu_mlp", {"T": 33, "DM": 100, "F": 300}),
    ("add_rms_norm_w8a8_proj", {"T": 33, "DM": 1100, "N": 200})])
def test_w8a8_solution_gives_the_references_bits(monkeypatch, name, dims, dtype):
    # codes, scales and the intermediate (h, hn) are the reference's to the bit, so the outputs
    # are too (bfloat16 is left out: Triton 3.9's interpreter stores float32 as bfloat16 by
    # truncation, sm_90 by cvt.rn)
    solution = _interpreted(monkeypatch, f"Fusion/{name}")
    _, ref, args = _task_inputs(f"Fusion/{name}", f"fusion.{name}", dims, dtype, 3, "outlier")
    got, expected = solution.run(*args), ref.reference(*args)
    got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
    assert all(torch.equal(g, e) for g, e in zip(got, expected)), name


def test_add_rms_norm_w8a8_reference_is_the_same_in_another_order_and_on_cuda(monkeypatch):
    # run 22: 11 of 42 cases failed on an H100 (float32 1719-4427 elements outside at the
    # large shapes, max 3.5e-3..6e-3; medium-float32-outlier 126): codes of hn flipped at
    # ties because r's last bit depends on the summation order of the float32 mean of squares
    # (and on div.full.f32, a reciprocal times hn). The old reference with its mean summed in
    # another order failed its own float32 bounds here (seed 2: 205 elements outside); a torch
    # model of the old kernel (256 FMA lanes, a tree, MUFU sqrt and rcp) flips 8-16 codes of a
    # llama3-8b-qkv case (647 and 4846 elements outside, H100 1719 and 2431). Now r is taken
    # from a float64 mean and rounded once, and the divisions are correctly rounded
    _, ref, args = _task_inputs("Fusion/add_rms_norm_w8a8_proj", "fusion.add_rms_norm_w8a8_proj",
                                {"T": 128, "DM": 512, "N": 1536}, "float32", 2, "outlier")
    expected = ref.reference(*args)
    mean = torch.Tensor.mean

    def another_order(t, *a, **k):  # float32 means summed in float64, float64 ones reversed
        if t.dtype == torch.float32:
            return mean(t.double(), *a, **k).float()
        return mean(t.flip(-1), *a, **k)

    monkeypatch.setattr(torch.Tensor, "mean", another_order)
    _cuda_scalar_division(monkeypatch)
    got = ref.reference(*args)
    assert all(torch.equal(g, e) for g, e in zip(got, expected))


def test_add_rms_norm_w8a8_codes_are_correctly_rounded_on_sm90():
    asm = _compile("Fusion/add_rms_norm_w8a8_proj", "_add_norm_quant_kernel",
                   {"x_ptr": "*bf16", "res_ptr": "*bf16", "w_ptr": "*bf16", "h_ptr": "*bf16",
                    "q_ptr": "*i8", "s_ptr": "*fp32", "DM": "i32", "eps": "fp32",
                    "BLOCK": "constexpr"}, {"BLOCK": 256}, {"num_warps": 4})
    assert not re.search(r"div\.full|div\.approx|sqrt\.approx|rsqrt|rcp", asm["ptx"])
    assert "sqrt.rn.f64" in asm["ptx"] and "div.rn.f32" in asm["ptx"]


# --- run 22 (session 34, helper H3): softmax_temperature's tied outlier logits ---------------

def _softmax_temperature_h100(x: torch.Tensor, T: float, how: str) -> torch.Tensor:
    """softmax(x / T) in float32 as the H100 computes it. `cuda`: PyTorch's reference (a CPU
    scalar divisor is x * float32(1 / float32(T)), BinaryDivTrueKernel.cu; z rounded); `fma`:
    the suite's solution as Triton 3.6 compiles it for sm_90 (z - max is fma.rn.f32(x, inv_t,
    -max): z never rounded); `div`: vLLM's logits.div_(temperatures), a tensor divisor, true
    division; `bf16`: z rounded to bfloat16 (lower precision); `fp16_exp`: exp rounded to
    float16 (lower precision)."""
    import numpy as np

    inv = np.float32(1.0 / T) if how == "fma" else np.float32(1) / np.float32(T)
    if how == "fma":
        m = (x * torch.tensor(inv)).amax(-1, keepdim=True)
        e = torch.exp((x.double() * float(inv) - m.double()).float())  # one rounding
        return e * (1 / e.double().sum(-1, keepdim=True).float())
    z = x / T if how in ("div", "bf16", "fp16_exp") else x * torch.tensor(inv)
    if how == "bf16":
        z = z.bfloat16().float()
    if how == "fp16_exp":
        e = torch.exp(z - z.amax(-1, keepdim=True)).half().float()
        return e / e.sum(-1, keepdim=True)
    return torch.softmax(z, -1)


@pytest.mark.parametrize("seed", [4, 6])
def test_softmax_temperature_honest_float32_passes_tied_outlier_logits(seed):
    # run 22: batch-32k-float32-outlier failed 13 of 33554432 elements ("got 0.307976, expected
    # 0.307878", rel_l2 5.74e-6). Outliers x1e3 made logits ~1.4e4: where two tie for a row's
    # top, a rounding of z = x / T (~1e-3) moves both by ~3e-4 relative, and PyTorch's own
    # answer was beyond rel_l2 5e-6 of the float64 truth (5-8% of seeds), so the judge had no
    # truth. Here (256 rows of the GPU shape) the old task failed both seeds; logits ~1e3 (x1e2,
    # the description's) and rel_l2 2e-5 pass every honest form; lower precision still fails
    from kgb.judge.truth import compare_for_task

    task_dir, task_id = "Normalization/softmax_temperature", "normalization.softmax_temperature"
    task, ref, (x, T) = _task_inputs(task_dir, task_id, {"M": 256, "V": 32768}, "float32", seed,
                                     "outlier")
    expected = [_softmax_temperature_h100(x, T, "cuda")]
    for how in ("fma", "div"):
        got = [_softmax_temperature_h100(x, T, how)]
        result = compare_for_task(task, ref, got, expected, (x, T), "float32")
        assert result.passed, (how, result.message)
    low = [_softmax_temperature_h100(x, T, "bf16")]
    assert not compare_for_task(task, ref, low, expected, (x, T), "float32").passed
    # exp in float16 hides in rows one outlier owns; the standard case shows it
    task, ref, (x, T) = _task_inputs(task_dir, task_id, {"M": 256, "V": 32768}, "float32", seed,
                                     "standard")
    expected = [_softmax_temperature_h100(x, T, "cuda")]
    low = [_softmax_temperature_h100(x, T, "fp16_exp")]
    assert not compare_for_task(task, ref, low, expected, (x, T), "float32").passed


# --- run 22 (session 34, helper H6): Quantization references that divide by a constant -------

def _kv_int8_asym_kernel_model(kv: torch.Tensor, reciprocal: bool, rounding=torch.round):
    """An honest kernel of quantization.kv_cache_int8_asym in torch: the scale (mx - mn) / 255
    correctly rounded (tl.div_rn, CUDA C's `/`) or as sm_90 runs the solution's `/ 255.0`
    (FMUL by float32(1/255), Triton 3.6.0 SASS), then (x - mn) / scale correctly rounded."""
    kf = kv.float()
    lo, hi = kf.amin(dim=-1, keepdim=True), kf.amax(dim=-1, keepdim=True)
    scale = (hi - lo) * float(torch.tensor(1.0) / torch.tensor(255.0)) if reciprocal else \
        (hi - lo) / torch.full_like(hi, 255.0)
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.where(scale > 0, rounding((kf - lo) / safe).clamp(0, 255), 0.0)
    return [q.to(torch.uint8), scale.squeeze(-1), lo.squeeze(-1)]


def test_kv_cache_int8_asym_honest_scales_pass_against_the_reference_on_cuda(monkeypatch):
    # the reference ran on CUDA divides by the Python scalar 255.0 as (mx - mn) * float32(1/255)
    # (BinaryDivTrueKernel.cu); a kernel dividing correctly rounded had a scale one ulp apart
    # in ~30% of rows. With bfloat16 inputs mx - mn = 255 * 2**p makes several codes of a row
    # exact .5 ties, which the scale's last bit decides: at the tiny shape (144 codes, at most 3
    # may differ) seed 51 flips 4 (all exact ties); 4 of 1000 standard and 3 of 1000 outlier
    # seeds failed the old task. The reference now divides by a tensor (IEEE on both devices)
    # and names the ties (`quotient`): both honest scales pass, on either device
    from kgb.judge.truth import compare_for_task

    task_dir, task_id = "Quantization/kv_cache_int8_asym", "quantization.kv_cache_int8_asym"
    task, ref, args = _task_inputs(task_dir, task_id, {"T": 3, "H": 2, "D": 24}, "bfloat16",
                                   51, "standard")
    on_cpu = ref.reference(*args)
    _cuda_scalar_division(monkeypatch)
    on_cuda = ref.reference(*args)
    monkeypatch.undo()
    kernels = [_kv_int8_asym_kernel_model(*args, reciprocal) for reciprocal in (False, True)]
    verdicts = [compare_for_task(task, ref, k, list(on_cuda), args, "bfloat16") for k in kernels]
    assert [v.passed for v in verdicts] == [True, True], [v.message for v in verdicts]
    # the ties are there: the two honest kernels differ at 4 codes
    assert int((kernels[0][0] != kernels[1][0]).sum()) == 4
    assert all(torch.equal(a, b) for a, b in zip(on_cpu, on_cuda))  # device-independent


@pytest.mark.parametrize("seed", [0, 51])
def test_kv_cache_int8_asym_ties_forgive_no_other_rounding(seed):
    # the quotient forgives only codes that differ at an exact .5 tie: truncation, off by one
    # at about half the codes, still fails
    from kgb.judge.truth import compare_for_task

    task, ref, args = _task_inputs("Quantization/kv_cache_int8_asym",
                                   "quantization.kv_cache_int8_asym",
                                   {"T": 37, "H": 3, "D": 100}, "bfloat16", seed, "standard")
    expected = list(ref.reference(*args))
    truncated = _kv_int8_asym_kernel_model(*args, True, rounding=torch.floor)
    verdict = compare_for_task(task, ref, truncated, expected, args, "bfloat16")
    assert not verdict.passed and "codes differ" in verdict.message, verdict.message
