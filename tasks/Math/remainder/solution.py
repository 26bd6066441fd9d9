import torch
import triton
import triton.language as tl


@triton.jit
def _fmod(x, y):
    # r = x - trunc(x / y) * y, exactly: with the right integer quotient q the fma rounds once
    # and the true remainder is representable. Compiled Triton's x / y is not correctly
    # rounded, so trunc(x / y) can be one off either way: r then has the wrong sign (|q| one too
    # big) or |r| >= |y| (one too small). Repair q and take the fma again.
    q = x / y
    q = tl.where(q >= 0.0, tl.floor(q), tl.ceil(q))
    r = tl.fma(-q, y, x)
    toward = tl.where((x < 0.0) != (y < 0.0), -1.0, 1.0)  # the sign of the true quotient
    wrong_sign = ((r < 0.0) & (x > 0.0)) | ((r > 0.0) & (x < 0.0))
    q = tl.where(wrong_sign, q - toward, q)
    q = tl.where(tl.abs(r) >= tl.abs(y), q + toward, q)
    return tl.fma(-q, y, x)


@triton.jit
def _remainder_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    y = tl.load(y_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    r = _fmod(x, y)
    r = tl.where((r != 0.0) & ((r < 0.0) != (y < 0.0)), r + y, r)
    tl.store(out_ptr + offsets, r.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _remainder_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK, num_warps=4)
    return out
