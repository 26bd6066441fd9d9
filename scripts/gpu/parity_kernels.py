"""Kernels that exercise every repair of kgb's CPU interpreter (kgb/worker/interpreter_fixes.py):
`and`/`or`/`not` on blocks, libdevice, bfloat16 arithmetic/reductions/scans/casts, float
arguments, loop variables as tensors, bf16 tl.dot, float32 tl.dot at TF32 and IEEE precision.
Their interpreted outputs (repairs applied) must equal their compiled outputs on a GPU: that is
the evidence each repair gives compiled semantics, not kgb's guess of them (fp32_dots tells a
truncating TF32 read, 16.0, from a rounding one, 16.015625).

    TRITON_INTERPRET=1 python scripts/gpu/parity_kernels.py cpu cpu.pt
    python scripts/gpu/parity_kernels.py cuda gpu.pt
    python scripts/gpu/parity_kernels.py compare cpu.pt gpu.pt"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

if os.environ.get("TRITON_INTERPRET") == "1":
    from kgb.worker.interpreter_fixes import apply

    apply()

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.language.extra import libdevice  # noqa: E402


@triton.jit
def bool_ops(x_ptr, out_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    keep = (x > 0) and (x < 1)
    neg = not (x > 0)
    both = FLAG and (x > 0.3)
    either = (x < -0.4) or (x > 1.4)
    y = tl.where(keep, 1.0, 0.0) + tl.where(neg, 10.0, 0.0) + tl.where(both, 100.0, 0.0)
    y += tl.where(either, 1000.0, 0.0)
    tl.store(out_ptr + offs, y, mask=offs < n)


@triton.jit
def libdevice_ops(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.tanh(x))
    tl.store(out_ptr + BLOCK + offs, libdevice.rint(x))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.erf(x))
    tl.store(out_ptr + 3 * BLOCK + offs, libdevice.pow(x * x, 0.5))
    tl.store(out_ptr + 4 * BLOCK + offs, libdevice.float2int_rn(x * 3.0).to(tl.float32))
    tl.store(out_ptr + 5 * BLOCK + offs, libdevice.exp2(x))
    tl.store(out_ptr + 6 * BLOCK + offs, libdevice.rsqrt(x * x + 1.0))


@triton.jit
def bf16_ops(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(a, b))
    tl.store(out_ptr + BLOCK + offs, a + b)
    tl.store(out_ptr + 2 * BLOCK + offs, tl.where(a > b, a, b))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.cumsum(a, axis=0))
    tl.store(out_ptr + 4 * BLOCK + offs, (a.to(tl.int32) * 2).to(tl.bfloat16))
    tl.store(out_ptr + 5 * BLOCK + offs, (a * b).to(tl.float32).to(tl.bfloat16))
    tl.store(out_ptr + 6 * BLOCK + offs, (a != 0).to(tl.bfloat16))
    tl.store(out_ptr + 7 * BLOCK, tl.sum(a, axis=0))
    tl.store(out_ptr + 7 * BLOCK + 1, tl.max(a, axis=0))


@triton.jit
def bf16_dot(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    tl.store(out_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))


@triton.jit
def fp32_dots(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    # tl.dot's default precision on float32 (TF32 on a GPU), "tf32" and "ieee": the repair
    # reads the operands as the tensor cores do (13 low mantissa bits dropped)
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    offs = r[:, None] * N + r[None, :]
    tl.store(out_ptr + offs, tl.dot(a, b))
    tl.store(out_ptr + N * N + offs, tl.dot(a, b, input_precision="tf32"))
    tl.store(out_ptr + 2 * N * N + offs, tl.dot(a, b, input_precision="ieee"))


@triton.jit
def float_arg(x_ptr, out_ptr, alpha, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * alpha)


@triton.jit
def loops(o_ptr, n, K, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, n):
        for j in range(i + 1, n):
            acc += tl.where(i == 0, 1.0, 0.0) + j
    for kk in range(0, tl.cdiv(K, BLOCK)):
        acc += kk.to(tl.int64).to(tl.float32)
    for s in tl.static_range(3):
        acc += s
    for t in tl.range(0, 2):
        acc += t.to(tl.float32)
    for u in range(n - 1, -1, -1):
        acc += u
    tl.store(o_ptr + tl.arange(0, BLOCK), acc)


my_tanh = libdevice.tanh  # aliases real packages take (docs/realworld.md, FP2 and FP3)
my_cast = tl.cast


@triton.jit
def aliases(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = my_tanh(x) + tl.extra.cuda.libdevice.round(x * 3.0) + my_cast(x > 0, tl.float32)
    tl.store(y_ptr + offs, y, mask=offs < n)


def outputs(device: str) -> dict[str, torch.Tensor]:
    out = {}
    x = torch.tensor([-0.5, 0.5, 1.5, 0.2], device=device)
    y = torch.empty_like(x)
    bool_ops[(1,)](x, y, 4, BLOCK=4, FLAG=True)
    out["bool_ops"] = y
    x8 = torch.linspace(-2.5, 2.5, 8, device=device)
    y8 = torch.empty(56, device=device)
    libdevice_ops[(1,)](x8, y8, BLOCK=8)
    out["libdevice"] = y8
    a = torch.tensor([-1.5, 2.0, -0.25, 3.0, -0.0, 0.0, 1e-3, -7.0], device=device).bfloat16()
    b = torch.tensor([-2.0, -3.0, 0.5, 1.0, 2.5, -1.0, 3e-3, 7.0], device=device).bfloat16()
    got = torch.zeros(64, dtype=torch.bfloat16, device=device)
    bf16_ops[(1,)](a, b, got, BLOCK=8)
    out["bf16_ops"] = got
    gen = torch.Generator(device="cpu").manual_seed(0)
    ma = torch.randn(16, 16, generator=gen).bfloat16().to(device)
    mb = torch.randn(16, 16, generator=gen).bfloat16().to(device)
    mc = torch.empty(16, 16, device=device)
    bf16_dot[(1,)](ma, mb, mc, N=16)
    out["bf16_dot"] = mc
    # 1 + 2^-11 + 2^-12: TF32 reads 1.0 (truncating) or 1 + 2^-10 (rounding); every sum exact
    fa = torch.full((16, 16), 1 + 2.0 ** -11 + 2.0 ** -12, device=device)
    fa[1] = -fa[1]
    fc = torch.empty(3 * 16 * 16, device=device)
    fp32_dots[(1,)](fa, torch.ones(16, 16, device=device), fc, N=16)
    out["fp32_dots"] = fc
    h = torch.tensor([1.0009765625, 3.0, 0.1, -7.5], dtype=torch.float16, device=device)
    hf = torch.empty(4, device=device)
    float_arg[(1,)](h, hf, 1.0 + 2.0 ** -12, 4)
    out["float_arg"] = hf
    lo = torch.zeros(4, device=device)
    loops[(1,)](lo, 4, 10, BLOCK=4)
    out["loops"] = lo
    ya = torch.empty(8, device=device)
    aliases[(1,)](x8, ya, 8, BLOCK=8)
    out["aliases"] = ya
    return out


def compare(cpu_path: str, gpu_path: str) -> int:
    cpu, gpu = torch.load(cpu_path), torch.load(gpu_path)
    bad = 0
    for name in gpu:
        c, g = cpu[name].float(), gpu[name].float()
        # libdevice's transcendental functions differ from PyTorch's by an ulp or so
        tol = 1e-6 if name != "libdevice" else 2e-6
        same = torch.allclose(c, g, rtol=tol, atol=tol, equal_nan=True)
        bad += not same
        worst = (c - g).abs().max().item()
        print(f"{'same' if same else 'DIFFERENT'} {name}: max |interpreted - compiled| = "
              f"{worst:.3g}")
    return 1 if bad else 0


if __name__ == "__main__":
    if os.environ.get("TRITON_INTERPRET") == "1":
        from kgb.worker.interpreter_fixes import bind_builtin_aliases

        bind_builtin_aliases(sys.modules[__name__])
    if sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    torch.save({k: v.cpu() for k, v in outputs(sys.argv[1]).items()}, sys.argv[2])
    print(f"saved {sys.argv[2]}")
