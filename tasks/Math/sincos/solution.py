import torch
import triton
import triton.language as tl


TWO_OVER_PI = tl.constexpr(0.6366197723675814)
# pi / 2 = PIO2_1 + PIO2_2 + PIO2_3; PIO2_1 and PIO2_2 have few significant bits, so k * PIO2_1
# and k * PIO2_2 are exact for |k| < 2^13 (|x| up to ~1.2e4)
PIO2_1 = tl.constexpr(1.5703125)
PIO2_2 = tl.constexpr(4.837512969970703125e-4)
PIO2_3 = tl.constexpr(7.54978995489188216e-8)
# least-squares fits on |r| <= pi / 4 (max error ~1 float32 ulp):
# sin r = r + r^3 (S1 + S2 r^2 + S3 r^4), cos r = 1 - r^2 / 2 + r^4 (C1 + C2 r^2 + C3 r^4)
S1 = tl.constexpr(-0.16666659003611736)
S2 = tl.constexpr(0.008332422055140617)
S3 = tl.constexpr(-0.0001954842653650899)
C1 = tl.constexpr(0.04166665245756734)
C2 = tl.constexpr(-0.0013887606551083256)
C3 = tl.constexpr(2.4463751301393998e-05)


@triton.jit
def _sincos_kernel(x_ptr, out0_ptr, out1_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    # x = k * pi / 2 + r with |r| <= pi / 4 (Cody-Waite reduction, fma keeps each step exact)
    k = tl.floor(x * TWO_OVER_PI + 0.5)
    r = tl.fma(-k, PIO2_1, x)
    r = tl.fma(-k, PIO2_2, r)
    r = tl.fma(-k, PIO2_3, r)
    u = r * r
    sin_r = r + r * u * (S1 + u * (S2 + u * S3))
    cos_r = 1.0 - 0.5 * u + u * u * (C1 + u * (C2 + u * C3))
    q = k.to(tl.int32) & 3  # quadrant (two's complement: -1 & 3 == 3)
    s = tl.where(q == 0, sin_r, tl.where(q == 1, cos_r, tl.where(q == 2, -sin_r, -cos_r)))
    c = tl.where(q == 0, cos_r, tl.where(q == 1, -sin_r, tl.where(q == 2, -cos_r, sin_r)))
    tl.store(out0_ptr + offsets, s.to(out0_ptr.dtype.element_ty), mask=mask)
    tl.store(out1_ptr + offsets, c.to(out1_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x = x.contiguous()
    out0 = torch.empty_like(x)
    out1 = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _sincos_kernel[(triton.cdiv(n, BLOCK),)](x, out0, out1, n, BLOCK=BLOCK, num_warps=4)
    return out0, out1
