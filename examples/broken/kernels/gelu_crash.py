# Crashes: the launcher raises before it launches anything (a bug on a code path every
# input reaches).
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 1.0 - 2.0 / (tl.exp(2.0 * inner) + 1.0)
    tl.store(out_ptr + offs, (0.5 * x * (1.0 + t)).to(out_ptr.dtype.element_ty), mask=mask)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        raise RuntimeError("simulated crash in the launcher")
    _gelu_kernel[(triton.cdiv(n, 1000),)](x, out, n, BLOCK=1000)
    return out
