import torch
import triton
import triton.language as tl


@triton.jit
def _log_softmax_bwd_kernel(o_ptr, g_ptr, dx_ptr, N, BLOCK_N: tl.constexpr,
                            SINGLE_PASS: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * N
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK_N)
        mask = cols < N
        o = tl.load(o_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        total = tl.sum(g, axis=0)
        tl.store(dx_ptr + base + cols, (g - tl.exp(o) * total).to(dx_ptr.dtype.element_ty),
                 mask=mask)
    else:
        acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            acc += tl.load(g_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
        total = tl.sum(acc, axis=0)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = cols < N
            o = tl.load(o_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            g = tl.load(g_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(dx_ptr + base + cols, (g - tl.exp(o) * total).to(dx_ptr.dtype.element_ty),
                     mask=mask)


def run(out: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = out.shape
    out = out.contiguous()
    grad_out = grad_out.contiguous()
    dx = torch.empty((M, N), dtype=out.dtype, device=out.device)
    MAX_BLOCK = 8192
    BLOCK_N = min(triton.next_power_of_2(N), MAX_BLOCK)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _log_softmax_bwd_kernel[(M,)](out, grad_out, dx, N, BLOCK_N=BLOCK_N,
                                  SINGLE_PASS=N <= MAX_BLOCK, num_warps=num_warps)
    return dx
