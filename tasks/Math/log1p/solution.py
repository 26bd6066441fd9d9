import torch
import triton
import triton.language as tl


@triton.jit
def _log1p(x):
    # |x| < 0.5: log1p(x) = 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ...), s = x / (2 + x),
    # |s| <= 1/3, so nine terms reach float32 precision with no cancellation.
    # Elsewhere 1 + x loses nothing that matters: log(1 + x) is accurate, -inf at x = -1 and
    # NaN below.
    s = x / (2.0 + x)
    s2 = s * s
    p = 1.0 / 19.0
    p = p * s2 + 1.0 / 17.0
    p = p * s2 + 1.0 / 15.0
    p = p * s2 + 1.0 / 13.0
    p = p * s2 + 1.0 / 11.0
    p = p * s2 + 1.0 / 9.0
    p = p * s2 + 1.0 / 7.0
    p = p * s2 + 1.0 / 5.0
    p = p * s2 + 1.0 / 3.0
    small = 2.0 * s * (p * s2 + 1.0)
    return tl.where(tl.abs(x) < 0.5, small, tl.log(1.0 + x))


@triton.jit
def _log1p_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = _log1p(x)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _log1p_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=4)
    return out
