import torch
import triton
import triton.language as tl


@triton.jit
def _cumprod_bwd_kernel(x_ptr, y_ptr, g_ptr, dx_ptr, N, BLOCK_N: tl.constexpr):
    # Blocks from the end of the row to its start, each loaded in reverse column order, so an
    # inclusive prefix sum over the lanes is the suffix sum of the columns; plus the carry.
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros([1], dtype=tl.float32)
    nblocks = tl.cdiv(N, BLOCK_N)
    for b in range(0, nblocks):
        start = (nblocks - 1 - b) * BLOCK_N
        cols = start + (BLOCK_N - 1 - tl.arange(0, BLOCK_N))
        mask = cols < N
        y = tl.load(y_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=1.0).to(tl.float32)
        t = g * y
        suffix = tl.cumsum(t, axis=0) + carry
        tl.store(dx_ptr + row * N + cols, (suffix / x).to(dx_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(t, axis=0)


def run(x: torch.Tensor, out: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    x = x.contiguous()
    y = out.contiguous()
    g = grad_out.contiguous()
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 2048)
    _cumprod_bwd_kernel[(M,)](x, y, g, dx, N, BLOCK_N=BLOCK_N, num_warps=4)
    return dx
