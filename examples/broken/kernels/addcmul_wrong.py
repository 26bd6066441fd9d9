# A plausible bug: computes x + t1 * t2 instead of x + 0.5 * t1 * t2.
import torch
import triton
import triton.language as tl


@triton.jit
def _addcmul_kernel(x_ptr, t1_ptr, t2_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    t1 = tl.load(t1_ptr + offs, mask=mask).to(tl.float32)
    t2 = tl.load(t2_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + t1 * t2).to(out_ptr.dtype.element_ty), mask=mask)


def run(x, t1, t2):
    out = torch.empty_like(x)
    n = x.numel()
    _addcmul_kernel[(triton.cdiv(n, 1024),)](x, t1, t2, out, n, BLOCK=1024)
    return out
