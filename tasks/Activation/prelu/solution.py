import torch
import triton
import triton.language as tl


@triton.jit
def _prelu_kernel(x_ptr, w_ptr, out_ptr, N, BLOCK_N: tl.constexpr):
    # one program per (row, block of columns): the weight block is loaded once per program
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = tl.where(x >= 0.0, x, w * x)
    tl.store(out_ptr + row * N + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    x, weight = x.contiguous(), weight.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_N = min(1024, triton.next_power_of_2(N))
    _prelu_kernel[(M, triton.cdiv(N, BLOCK_N))](x, weight, out, N, BLOCK_N=BLOCK_N, num_warps=4)
    return out
