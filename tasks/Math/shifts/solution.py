import torch
import triton
import triton.language as tl


@triton.jit
def _shifts_kernel(a_ptr, s_ptr, out0_ptr, out1_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    s = tl.load(s_ptr + offsets, mask=mask)
    left = a << s
    right = a >> s  # signed operands: arithmetic shift
    tl.store(out0_ptr + offsets, left.to(out0_ptr.dtype.element_ty), mask=mask)
    tl.store(out1_ptr + offsets, right.to(out1_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    a, s = a.contiguous(), s.contiguous()
    out0 = torch.empty_like(a)
    out1 = torch.empty_like(a)
    n = a.numel()
    BLOCK = 1024
    _shifts_kernel[(triton.cdiv(n, BLOCK),)](a, s, out0, out1, n, BLOCK=BLOCK, num_warps=4)
    return out0, out1
