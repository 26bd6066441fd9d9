import torch
import triton
import triton.language as tl


@triton.jit
def _rev_cumsum_kernel(g_ptr, dx_ptr, N, BLOCK_N: tl.constexpr):
    # walks the row from its end: element r of a block is column N - 1 - (start + r), so an
    # inclusive prefix sum over the block is a suffix sum over the columns
    row = tl.program_id(0).to(tl.int64)
    g_row = g_ptr + row * N
    o_row = dx_ptr + row * N
    carry = tl.zeros([1], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        r = start + tl.arange(0, BLOCK_N)
        mask = r < N
        cols = N - 1 - r
        g = tl.load(g_row + cols, mask=mask, other=0.0).to(tl.float32)
        s = tl.cumsum(g, axis=0) + carry
        tl.store(o_row + cols, s.to(dx_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(g, axis=0)


def run(x: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = grad_out.shape
    grad_out = grad_out.contiguous()
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 2048)
    _rev_cumsum_kernel[(M,)](grad_out, dx, N, BLOCK_N=BLOCK_N, num_warps=4)
    return dx
