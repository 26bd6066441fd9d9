import torch
import triton
import triton.language as tl


@triton.jit
def _scale_mask_softmax_bwd_kernel(x_ptr, m_ptr, g_ptr, dx_ptr, H, SQ, SK, scale,
                                   BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    i = row % SQ
    b = row // (H * SQ)
    cols = tl.arange(0, BLOCK)
    valid = cols < SK
    x = tl.load(x_ptr + row * SK + cols, mask=valid, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + (b * SQ + i) * SK + cols, mask=valid, other=0.0).to(tl.float32)
    z = tl.where(valid, x * scale + m, -float("inf"))
    e = tl.exp(z - tl.max(z, axis=0))
    y = e / tl.sum(e, axis=0)
    g = tl.load(g_ptr + row * SK + cols, mask=valid, other=0.0).to(tl.float32)
    dot = tl.sum(g * y, axis=0)
    dx = scale * y * (g - dot)
    tl.store(dx_ptr + row * SK + cols, dx.to(dx_ptr.dtype.element_ty), mask=valid)


def run(scores, mask, scale, grad_out):
    B, H, SQ, SK = scores.shape
    dx = torch.empty((B, H, SQ, SK), dtype=scores.dtype, device=scores.device)
    BLOCK = triton.next_power_of_2(SK)
    num_warps = 4 if BLOCK <= 2048 else (8 if BLOCK <= 4096 else 16)
    _scale_mask_softmax_bwd_kernel[(B * H * SQ,)](scores, mask, grad_out, dx, H, SQ, SK, scale,
                                                  BLOCK=BLOCK, num_warps=num_warps)
    return dx
