import torch
import triton
import triton.language as tl


@triton.jit
def _l2n_bwd_kernel(x_ptr, g_ptr, dx_ptr, N, sxm, sxn, BLOCK_N: tl.constexpr,
                    SINGLE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * sxm
    base = row * N  # grad_out and grad_x are contiguous
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * sxn, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0))
        y = x * inv
        dot = tl.sum(y * g, axis=0)
        tl.store(dx_ptr + base + cols, ((g - y * dot) * inv).to(dx_ptr.dtype.element_ty),
                 mask=mask)
    else:
        sq = tl.zeros([BLOCK_N], dtype=tl.float32)
        xg = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = cols < N
            x = tl.load(x_row + cols * sxn, mask=mask, other=0.0).to(tl.float32)
            g = tl.load(g_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            sq += x * x
            xg += x * g
        inv = 1.0 / tl.sqrt(tl.sum(sq, axis=0))
        dot = tl.sum(xg, axis=0) * inv  # sum_k y_k g_k
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = cols < N
            x = tl.load(x_row + cols * sxn, mask=mask, other=0.0).to(tl.float32)
            g = tl.load(g_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            dx = (g - x * inv * dot) * inv
            tl.store(dx_ptr + base + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    grad_out = grad_out.contiguous()
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    MAX_BLOCK = 8192
    BLOCK_N = min(triton.next_power_of_2(N), MAX_BLOCK)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _l2n_bwd_kernel[(M,)](x, grad_out, dx, N, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N,
                          SINGLE_PASS=N <= MAX_BLOCK, num_warps=num_warps)
    return dx
