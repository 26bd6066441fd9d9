import torch
import triton
import triton.language as tl


@triton.jit
def _bitwise_ops_kernel(a_ptr, b_ptr, out0_ptr, out1_ptr, out2_ptr, n_elements,
                        BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    v_and = a & b
    v_or = a | b
    v_xor = a ^ b
    tl.store(out0_ptr + offsets, v_and.to(out0_ptr.dtype.element_ty), mask=mask)
    tl.store(out1_ptr + offsets, v_or.to(out1_ptr.dtype.element_ty), mask=mask)
    tl.store(out2_ptr + offsets, v_xor.to(out2_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    a, b = a.contiguous(), b.contiguous()
    out0 = torch.empty_like(a)
    out1 = torch.empty_like(a)
    out2 = torch.empty_like(a)
    n = a.numel()
    BLOCK = 1024
    _bitwise_ops_kernel[(triton.cdiv(n, BLOCK),)](a, b, out0, out1, out2, n, BLOCK=BLOCK,
                                                  num_warps=4)
    return out0, out1, out2
