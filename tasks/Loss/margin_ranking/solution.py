import torch
import triton
import triton.language as tl


@triton.jit
def _margin_partial_kernel(a_ptr, b_ptr, y_ptr, part_ptr, T, margin, BLOCK: tl.constexpr,
                           ITERS: tl.constexpr):
    # Program p sums the hinge over its ITERS consecutive blocks into part[p] (float32).
    p = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for it in range(ITERS):
        offs = (p.to(tl.int64) * ITERS + it) * BLOCK + tl.arange(0, BLOCK)
        m = offs < T
        a = tl.load(a_ptr + offs, mask=m, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=m, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=m, other=0.0).to(tl.float32)
        acc += tl.where(m, tl.maximum(-y * (a - b) + margin, 0.0), 0.0)
    tl.store(part_ptr + p, tl.sum(acc, axis=0))


@triton.jit
def _mean_kernel(part_ptr, out_ptr, P, T, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < P, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / T)


def run(x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor, margin: float) -> torch.Tensor:
    a = x1.contiguous()
    b = x2.contiguous()
    yy = y.contiguous()
    T = a.numel()
    BLOCK, ITERS = 1024, 8
    P = triton.cdiv(T, BLOCK * ITERS)
    part = torch.empty((P,), dtype=torch.float32, device=a.device)
    out = torch.empty((), dtype=torch.float32, device=a.device)
    _margin_partial_kernel[(P,)](a, b, yy, part, T, margin, BLOCK=BLOCK, ITERS=ITERS,
                                 num_warps=4)
    _mean_kernel[(1,)](part, out, P, T, BLOCK=1024, num_warps=4)
    return out
