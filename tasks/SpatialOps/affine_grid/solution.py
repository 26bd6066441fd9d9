import torch
import triton
import triton.language as tl


@triton.jit
def _affine_grid_kernel(theta_ptr, out_ptr, H, W, BLOCK: tl.constexpr):
    # Pixel (i, j) of image n: its normalized centre (x, y) = ((2j + 1) / W - 1, (2i + 1) / H - 1)
    # (align_corners=False) mapped by theta[n]: grid = theta[n] @ (x, y, 1), in float32.
    n = tl.program_id(0)
    p = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = p < H * W
    i = p // W
    j = p % W
    x = (2 * j + 1).to(tl.float32) / W - 1.0
    y = (2 * i + 1).to(tl.float32) / H - 1.0
    t = theta_ptr + n * 6
    t00 = tl.load(t + 0).to(tl.float32)
    t01 = tl.load(t + 1).to(tl.float32)
    t02 = tl.load(t + 2).to(tl.float32)
    t10 = tl.load(t + 3).to(tl.float32)
    t11 = tl.load(t + 4).to(tl.float32)
    t12 = tl.load(t + 5).to(tl.float32)
    gx = t00 * x + t01 * y + t02
    gy = t10 * x + t11 * y + t12
    out = out_ptr + (n.to(tl.int64) * H * W + p) * 2
    tl.store(out, gx.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out + 1, gy.to(out_ptr.dtype.element_ty), mask=mask)


def run(theta: torch.Tensor, h: int, w: int) -> torch.Tensor:
    n = theta.shape[0]
    t = theta.contiguous()
    out = torch.empty((n, h, w, 2), device=theta.device, dtype=theta.dtype)
    BLOCK = 256
    _affine_grid_kernel[(n, triton.cdiv(h * w, BLOCK))](t, out, h, w, BLOCK=BLOCK)
    return out
