"""Headroom of the 16-bit-only float GEMM tasks (issue 27, session 32; docs/tasks.md,
"16-bit-only float tasks"): how far honest formulations and lower-precision answers land from
the reference, and what the full judge (float64 truth included) says about them.

    .venv/bin/python scripts/sixteen_bit_headroom.py headroom tasks/Quantization/fp8_scaled_mm ...
    .venv/bin/python scripts/sixteen_bit_headroom.py judge tasks/Quantization/fp8_scaled_mm \
        float16 7e-4 [--seeds 10] [--strict]

headroom: per task, dtype and answer, the worst (and lowest) relative L2 error and the worst
allclose ratio max(|out - ref| / (atol + rtol |ref|)) over the CPU shapes x modes x 3 seeds and
the GPU shapes with M/N/T cut (K and the widths kept: an element's error depends on K).
judge: the task's own comparison (kgb.suite.quality.TaskProbe.judge) of each answer on every CPU
shape x mode x N seeds, with a candidate rel_l2 for one dtype (and strict_tolerance)."""

import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from kgb.tasks.casegen import generate_inputs, load_module
from kgb.tasks.loader import load_task

torch.set_num_threads(1)
D = torch.float64


def mant(x: torch.Tensor, bits: int) -> torch.Tensor:
    """x (float64) rounded to `bits` stored mantissa bits, half to even, no range limit."""
    m, e = torch.frexp(x)  # x = m * 2^e, 0.5 <= |m| < 1
    scale = 2.0 ** (bits + 1)
    return torch.ldexp(torch.round(m * scale) / scale, e)


def trunc_mant(x: torch.Tensor, bits: int) -> torch.Tensor:
    m, e = torch.frexp(x)
    scale = 2.0 ** (bits + 1)
    return torch.ldexp(torch.trunc(m * scale) / scale, e)


def rnd(x: torch.Tensor, dt: torch.dtype) -> torch.Tensor:
    return x.to(dt).to(D)


def blocked(a: torch.Tensor, b: torch.Tensor, bk: int, acc: str, splits: int = 1) -> torch.Tensor:
    """a [M, K] @ b [K, N], each BK block's dot in float32, added to an accumulator kept in
    `acc` (float32, float16, bfloat16); `splits` K ranges summed in float32 at the end."""
    K = a.shape[1]
    per = math.ceil(K / splits / bk) * bk
    total = torch.zeros(a.shape[0], b.shape[1], dtype=torch.float32)
    a32, b32 = a.float(), b.float()
    for s0 in range(0, K, per):
        accum = torch.zeros_like(total)
        for k0 in range(s0, min(K, s0 + per), bk):
            part = a32[:, k0:k0 + bk] @ b32[k0:k0 + bk]
            accum = accum + part
            if acc != "float32":
                accum = accum.to(getattr(torch, acc)).float()
        total = total + accum
    return total.double()


def fp8_act(x: torch.Tensor) -> torch.Tensor:
    """x quantized per-tensor to e4m3 and dequantized (a W4A8 / W8A8 shortcut)."""
    s = x.abs().max().clamp_min(1e-12) / 448.0
    return (x / s).to(torch.float8_e4m3fn).double() * s


# ---- per-task answers: name -> float64 value before the final rounding (None: skip) ----

def w4_answers(mod, inputs, dt):
    x, *rest = inputs
    w64 = mod._weight(*rest, torch.float64)
    w16 = w64.to(dt).double()
    xd = x.double()
    ans = {
        "H fp32 dequant, fp32 dot": (xd.float() @ w64.float()).double(),
        "H W->16bit, fp32 acc BK32": blocked(xd, w16, 32, "float32"),
        "H W->16bit, split-K 4, BK64": blocked(xd, w16, 64, "float32", 4),
        "H W->16bit, BK128": blocked(xd, w16, 128, "float32"),
        "L 16-bit acc BK32": blocked(xd, w16, 32, str(dt).removeprefix("torch.")),
        "L x->e4m3 per-tensor": fp8_act(xd) @ w64,
    }
    return ans


def w8_answers(mod, inputs, dt):
    x, weight, scale = inputs
    xd, wd, sd = x.double(), weight.double().T, scale.double()
    folded = (wd * sd[None, :]).to(dt).double()
    return {
        "H codes dot, scale after (fp32)": (xd.float() @ wd.float()).double() * sd[None, :],
        "H scale folded into W->16bit, BK32": blocked(xd, folded, 32, "float32"),
        "H codes, split-K 4, scale after": blocked(xd, wd, 64, "float32", 4) * sd[None, :],
        "L 16-bit acc BK32 (folded)": blocked(xd, folded, 32, str(dt).removeprefix("torch.")),
        "L x->e4m3 per-tensor": (fp8_act(xd) @ wd) * sd[None, :],
    }


def tc_fp8_block(a: torch.Tensor, b: torch.Tensor, bits: int, promote: int) -> torch.Tensor:
    """fp8 tensor-core emulation: k=32 chunks summed exactly, added to an accumulator that keeps
    `bits` mantissa bits (truncating), promoted into float32 every `promote` products.
    a [M, K], b [K, N] float64 holding fp8 values. Returns float64 [M, N] of the raw sum."""
    K = a.shape[1]
    total = torch.zeros(a.shape[0], b.shape[1], dtype=torch.float32)
    for p0 in range(0, K, promote):
        acc = torch.zeros(a.shape[0], b.shape[1], dtype=D)
        for k0 in range(p0, min(K, p0 + promote), 32):
            acc = trunc_mant(acc + a[:, k0:k0 + 32] @ b[k0:k0 + 32], bits)
        total = total + acc.float()
    return total.double()


def fp8_block_answers(mod, inputs, dt):
    a, a_scale, b, b_scale, _ = inputs
    K = a.shape[1]
    A = mod._dequantize(a, a_scale, 1)
    B = mod._dequantize(b, b_scale, 128)
    base = mod.baseline(*inputs)  # rounded already
    ad, bd = a.double(), b.double().T
    sa = a_scale.double()
    sb = b_scale.double().repeat_interleave(128, dim=0)[:b.shape[0]]  # [N, GK]

    def per_block(acc_dtype, tc_bits=None):
        total = torch.zeros(a.shape[0], b.shape[0], dtype=torch.float32)
        for kb, k0 in enumerate(range(0, K, 128)):
            if tc_bits is None:
                part = (ad[:, k0:k0 + 128].float() @ bd[k0:k0 + 128].float())
            else:
                part = tc_fp8_block(ad[:, k0:k0 + 128], bd[k0:k0 + 128], tc_bits, 128).float()
            scaled = part * (sa[:, kb:kb + 1].float() * sb[:, kb][None, :].float())
            total = total + scaled
            if acc_dtype is not None:
                total = total.to(acc_dtype).float()
        return total.double()

    return {
        "H baseline: dequant fp32, one GEMM": ("rounded", base),
        "H per-block fp32 dot, scaled, fp32 acc": per_block(None),
        "H per-block TC 14-bit acc, fp32 acc": per_block(None, 13),
        "L 16-bit outer acc": per_block(dt),
        "L dequant A,B to 16-bit first": (A.to(dt).double() @ B.to(dt).double().T),
    }


def fp8_mm_answers(mod, inputs, dt):
    a, b, scale_a, scale_b, bias = inputs
    ad, bd = a.double(), b.double().T
    s = scale_a.float() * scale_b.float()
    bias_d = bias.double()[None, :]

    def fin(acc):
        return (acc.float() * s + bias.float()[None, :]).double()

    tc_full = None
    if a.shape[1] <= 4096 and a.shape[0] * b.shape[0] <= 64 * 512:
        tc_full = fin(tc_fp8_block(ad, bd, 13, a.shape[1]))
    out = {
        "H baseline: dequant fp32, one GEMM": ("rounded", mod.baseline(*inputs)),
        "H fp32 acc BK32, scale after": fin(blocked(ad, bd, 32, "float32")),
        "H split-K 4, scale after": fin(blocked(ad, bd, 64, "float32", 4)),
        "H TC 14-bit acc promoted every 128": fin(tc_fp8_block(ad, bd, 13, 128)),
        "L 16-bit acc of scaled partials BK32": None,
    }
    # 16-bit accumulation of the scaled BK32 partials (a kernel accumulating in the out dtype)
    K = a.shape[1]
    acc = torch.zeros(a.shape[0], b.shape[0], dtype=torch.float32)
    for k0 in range(0, K, 32):
        acc = (acc + (ad[:, k0:k0 + 32].float() @ bd[k0:k0 + 32].float()) * s).to(dt).float()
    out["L 16-bit acc of scaled partials BK32"] = (acc + bias.float()[None, :]).double()
    if tc_full is not None:
        out["L TC 14-bit acc chained over K (fast accum)"] = tc_full
    del bias_d
    return out


def swiglu_answers(mod, inputs, dt):
    x, gq, gz, gs, dq, dz, ds = inputs
    w_gu = mod._dequant(gq, gz, gs)
    w_d = mod._dequant(dq, dz, ds)
    f = w_gu.shape[1] // 2
    xd = x.double()
    dts = str(dt).removeprefix("torch.")

    def run(wg, wd, acc, bk=32, splits=1, hround=True, x_in=xd):
        gu = blocked(x_in, wg, bk, acc, splits).float()
        h = (F.silu(gu[:, :f]) * gu[:, f:])
        h = h.to(dt).double() if hround else h.double()
        return blocked(h, wd, bk, acc, splits)

    return {
        "H fp32 dequant, fp32 acc": run(w_gu, w_d, "float32", 128),
        "H W->16bit, fp32 acc BK32": run(w_gu.to(dt).double(), w_d.to(dt).double(), "float32"),
        "H W->16bit, split-K 4": run(w_gu.to(dt).double(), w_d.to(dt).double(), "float32", 64, 4),
        "L 16-bit acc BK32": run(w_gu.to(dt).double(), w_d.to(dt).double(), dts),
        "L x->e4m3 per-tensor": run(w_gu, w_d, "float32", 128, x_in=fp8_act(xd)),
    }


FAMILY = {"quantization.w4a16_awq_gemm": w4_answers, "quantization.w4a16_gptq_gemm": w4_answers,
          "quantization.w8a16_int8_gemm": w8_answers,
          "quantization.fp8_block_gemm": fp8_block_answers,
          "quantization.fp8_scaled_mm": fp8_mm_answers,
          "fusion.w4a16_awq_swiglu_mlp": swiglu_answers}
CUT = {"M": 48, "N": 256, "T": 24}


def metrics(out: torch.Tensor, ref: torch.Tensor, tol) -> tuple[float, float, float]:
    o, r = out.double(), ref.double()
    err = (o - r).abs()
    rel = float(err.norm() / r.norm()) if r.norm() > 0 else 0.0
    ratio = float((err / (tol.atol + tol.rtol * r.abs())).max())
    share = float((err > tol.atol + tol.rtol * r.abs()).double().mean())
    return rel, ratio, share


def headroom(folders: list[str]) -> None:
    seeds = (1, 2, 3)
    for folder in folders:
        task = load_task(Path(folder))
        inputs_mod = load_module(task.inputs_path, "inp")
        ref_mod = load_module(task.reference_path, "ref")
        fam = FAMILY[task.id]
        print(f"\n### {task.id}")
        for dtype in task.dtypes:
            dt = getattr(torch, dtype)
            tol = task.tolerance_for(dtype)
            print(f"-- {dtype}: atol={tol.atol} rtol={tol.rtol} rel_l2={tol.rel_l2}")
            rows: dict[str, list] = {}
            for shape in task.shapes:
                dims = dict(shape.as_dict())
                gpu = shape.gpu_only
                if gpu:
                    dims = {k: (min(v, CUT[k]) if k in CUT else v) for k, v in dims.items()}
                for mode in task.modes:
                    for seed in seeds:
                        inputs = generate_inputs(inputs_mod, dims, dtype, mode, seed, "cpu")
                        with torch.no_grad():
                            ref = ref_mod.reference(*inputs)
                            answers = fam(ref_mod, inputs, dt)
                        # the right answer in float64 (no rounding): the lower-precision roundings
                        exact = None
                        for name, val in answers.items():
                            if name.startswith("H fp32") or name.startswith("H codes dot"):
                                exact = val
                        if exact is None:
                            exact = next(v for v in answers.values() if not isinstance(v, tuple))
                        if dtype == "float16":
                            answers["L output rounded through bfloat16"] = rnd(exact,
                                                                               torch.bfloat16)
                        answers["L output, 1 mantissa bit fewer than the dtype"] = mant(
                            exact, 9 if dtype == "float16" else 6)
                        answers["L output rounded to e4m3 mantissa (3 bits)"] = mant(exact, 3)
                        for name, val in answers.items():
                            if val is None:
                                continue
                            out = val[1] if isinstance(val, tuple) else val.to(dt)
                            m = metrics(out, ref, tol)
                            key = (name, "gpu" if gpu else "cpu")
                            row = rows.setdefault(key, [0.0, 0.0, 0.0, "", math.inf, ""])
                            if m[0] < row[4] and not torch.equal(out.to(dt), ref):
                                row[4], row[5] = m[0], f"{shape.name}/{mode}"
                            if m[0] > row[0]:
                                row[0], row[3] = m[0], f"{shape.name}/{mode}"
                            row[1] = max(row[1], m[1])
                            row[2] = max(row[2], m[2])
            for (name, where), (rel, ratio, share, at, lo, lo_at) in sorted(rows.items()):
                print(f"  {name:44s} {where} rel_l2 max {rel:9.3g} ({at:20s}) "
                      f"min {lo:9.3g} ({lo_at:20s}) ratio max {ratio:7.3g} outside {share:.3g}")
            sys.stdout.flush()


def judge(folder: str, dtype: str, rel: float, nseeds: int, strict: bool) -> None:
    from dataclasses import replace

    from kgb.suite import quality as Q

    task = load_task(Path(folder))
    tol = dict(task.tolerance)
    tol[dtype] = replace(tol[dtype], rel_l2=rel)
    task = replace(task, tolerance=tuple(tol.items()),
                   strict_tolerance=strict or task.strict_tolerance)
    probe = Q.TaskProbe(task)
    dt = getattr(torch, dtype)
    fam = FAMILY[task.id]
    fails: dict[str, list] = {}
    for shape in task.shapes:
        if shape.gpu_only:
            continue
        for mode in task.modes:
            for seed in range(100, 100 + nseeds):
                case = next(c for c in Q._cases(task, True) if c.shape.name == shape.name
                            and c.dtype == dtype and c.mode == mode)
                inputs = probe.make(replace(case, seed=seed))
                answers = fam(probe.reference, inputs, dt)
                exact = next(v for k, v in answers.items()
                             if k.startswith(("H fp32", "H codes dot", "H baseline")))
                exact = (exact[1] if isinstance(exact, tuple) else exact).double()
                if dtype == "float16":
                    answers["L output rounded through bfloat16"] = rnd(exact, torch.bfloat16)
                answers["L output e4m3 mantissa"] = mant(exact, 3)
                answers["L output 1 bit fewer"] = mant(exact, 9 if dtype == "float16" else 6)
                for name, val in answers.items():
                    if val is None:
                        continue
                    out = val[1] if isinstance(val, tuple) else val.to(dt)
                    why = probe.judge([out], inputs, dtype)
                    row = fails.setdefault(name, [0, 0, set()])
                    row[1] += 1
                    if why is not None:
                        row[0] += 1
                        row[2].add(f"{shape.name}/{mode}")
    print(f"{task.id} {dtype} rel_l2={rel:g} strict={task.strict_tolerance} "
          f"({nseeds} seeds per CPU shape x mode)")
    for name, (n, of, where) in fails.items():
        print(f"  {name:46s} fails {n:3d} of {of:3d}  {sorted(where) if n < of else 'all'}")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    one = sub.add_parser("headroom")
    one.add_argument("tasks", nargs="+")
    two = sub.add_parser("judge")
    two.add_argument("task")
    two.add_argument("dtype", choices=["float16", "bfloat16"])
    two.add_argument("rel_l2", type=float)
    two.add_argument("--seeds", type=int, default=10)
    two.add_argument("--strict", action="store_true")
    args = parser.parse_args()
    if args.what == "headroom":
        headroom(args.tasks)
    else:
        judge(args.task, args.dtype, args.rel_l2, args.seeds, args.strict)


if __name__ == "__main__":
    main()
