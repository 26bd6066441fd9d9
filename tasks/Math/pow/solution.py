import torch
import triton
import triton.language as tl


@triton.jit
def _pow_kernel(base_ptr, exponent_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    base = tl.load(base_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    exponent = tl.load(exponent_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    # b^e = exp(e * log b): log 0 = -inf gives 0 (e > 0) or +inf (e < 0); e == 0 gives 1 always
    r = tl.exp(exponent * tl.log(base))
    y = tl.where(exponent == 0.0, 1.0, r)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(base: torch.Tensor, exponent: torch.Tensor) -> torch.Tensor:
    base, exponent = base.contiguous(), exponent.contiguous()
    out = torch.empty_like(base)
    n = base.numel()
    BLOCK = 1024
    _pow_kernel[(triton.cdiv(n, BLOCK),)](base, exponent, out, n, BLOCK=BLOCK, num_warps=4)
    return out
