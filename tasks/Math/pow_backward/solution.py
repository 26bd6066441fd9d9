import torch
import triton
import triton.language as tl


@triton.jit
def _pow_backward_kernel(base_ptr, exponent_ptr, grad_out_ptr, out0_ptr, out1_ptr, n_elements,
                         BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    base = tl.load(base_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    exponent = tl.load(exponent_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    grad_out = tl.load(grad_out_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    lb = tl.log(base)
    p = tl.exp(exponent * lb)  # base ^ exponent
    # exponent * base^(exponent - 1); exponent == 0 gives exactly 0
    gb = grad_out * exponent * tl.exp((exponent - 1.0) * lb)
    ge = grad_out * p * lb
    tl.store(out0_ptr + offsets, gb.to(out0_ptr.dtype.element_ty), mask=mask)
    tl.store(out1_ptr + offsets, ge.to(out1_ptr.dtype.element_ty), mask=mask)


def run(base: torch.Tensor, exponent: torch.Tensor,
        grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    base, exponent, grad_out = base.contiguous(), exponent.contiguous(), grad_out.contiguous()
    out0 = torch.empty_like(base)
    out1 = torch.empty_like(base)
    n = base.numel()
    BLOCK = 1024
    _pow_backward_kernel[(triton.cdiv(n, BLOCK),)](base, exponent, grad_out, out0, out1, n,
                                                   BLOCK=BLOCK, num_warps=4)
    return out0, out1
