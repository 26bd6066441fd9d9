import torch
import triton
import triton.language as tl


@triton.jit
def _polyval_kernel(x_ptr, c_ptr, out_ptr, n_elements, K, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    # Horner from the highest power down; the coefficients are scalars shared by the block
    p = tl.zeros([BLOCK], dtype=tl.float32) + tl.load(c_ptr + K - 1)
    for i in range(1, K):
        p = p * x + tl.load(c_ptr + K - 1 - i)
    tl.store(out_ptr + offsets, p.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, coeffs: torch.Tensor) -> torch.Tensor:
    x, coeffs = x.contiguous(), coeffs.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _polyval_kernel[(triton.cdiv(n, BLOCK),)](x, coeffs, out, n, coeffs.numel(), BLOCK=BLOCK,
                                             num_warps=4)
    return out
