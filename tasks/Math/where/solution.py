import torch
import triton
import triton.language as tl


@triton.jit
def _where_kernel(c_ptr, x_ptr, y_ptr, out_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    c = tl.load(c_ptr + row * N + cols, mask=mask, other=0) != 0
    x = tl.load(x_ptr + row * N + cols, mask=mask & c, other=0.0)
    y = tl.load(y_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * N + cols, tl.where(c, x, y), mask=mask)


def run(cond: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    cond, x, y = cond.contiguous(), x.contiguous(), y.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_N = min(1024, triton.next_power_of_2(N))
    _where_kernel[(M, triton.cdiv(N, BLOCK_N))](cond, x, y, out, N, BLOCK_N=BLOCK_N, num_warps=4)
    return out
