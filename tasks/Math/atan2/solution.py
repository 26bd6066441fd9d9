import torch
import triton
import triton.language as tl


PI = tl.constexpr(3.141592653589793)
PI_2 = tl.constexpr(1.5707963267948966)
PI_4 = tl.constexpr(0.7853981633974483)
TAN_PI_8 = tl.constexpr(0.41421356237309503)
# least-squares fit on |t| <= tan(pi / 8): atan t = t + t^3 (A0 + A1 t^2 + ... + A4 t^8)
A0 = tl.constexpr(-0.3333332262510711)
A1 = tl.constexpr(0.19998923004510402)
A2 = tl.constexpr(-0.14251981889006426)
A3 = tl.constexpr(0.10655330463193802)
A4 = tl.constexpr(-0.06231342278605535)


@triton.jit
def _atan_unit(t):
    # atan(t) for 0 <= t <= 1: above tan(pi / 8) use atan t = pi / 4 + atan((t - 1) / (t + 1))
    big = t > TAN_PI_8
    v = tl.where(big, (t - 1.0) / (t + 1.0), t)
    w = v * v
    p = A0 + w * (A1 + w * (A2 + w * (A3 + w * A4)))
    a = v + v * w * p
    return tl.where(big, PI_4 + a, a)


@triton.jit
def _sign_bit(v):
    # true for negative values and for -0.0
    return v.to(tl.int32, bitcast=True) < 0


@triton.jit
def _atan2_kernel(y_ptr, x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    ax = tl.abs(x)
    ay = tl.abs(y)
    hi = tl.maximum(ax, ay)
    lo = tl.minimum(ax, ay)
    t = lo / tl.where(hi == 0.0, 1.0, hi)  # 0 when both are zero
    a = _atan_unit(t)
    a = tl.where(ay > ax, PI_2 - a, a)
    a = tl.where(_sign_bit(x), PI - a, a)
    dx = tl.where(_sign_bit(y), -a, a)
    tl.store(out_ptr + offsets, dx.to(out_ptr.dtype.element_ty), mask=mask)


def run(y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    y, x = y.contiguous(), x.contiguous()
    out = torch.empty_like(y)
    n = y.numel()
    BLOCK = 1024
    _atan2_kernel[(triton.cdiv(n, BLOCK),)](y, x, out, n, BLOCK=BLOCK, num_warps=4)
    return out
