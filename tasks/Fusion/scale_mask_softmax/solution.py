import torch
import triton
import triton.language as tl


@triton.jit
def _scale_mask_softmax_kernel(x_ptr, m_ptr, o_ptr, H, SQ, SK, scale,
                               BLOCK: tl.constexpr):
    # one program per (b, h, i) row; the mask row is shared by the H heads of batch b
    row = tl.program_id(0).to(tl.int64)
    i = row % SQ
    b = row // (H * SQ)
    cols = tl.arange(0, BLOCK)
    valid = cols < SK
    x = tl.load(x_ptr + row * SK + cols, mask=valid, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + (b * SQ + i) * SK + cols, mask=valid, other=0.0).to(tl.float32)
    z = tl.where(valid, x * scale + m, -float("inf"))
    z_max = tl.max(z, axis=0)
    e = tl.exp(z - z_max)  # masked keys: exp(-inf) = 0
    out = e / tl.sum(e, axis=0)
    tl.store(o_ptr + row * SK + cols, out.to(o_ptr.dtype.element_ty), mask=valid)


def run(scores, mask, scale):
    B, H, SQ, SK = scores.shape
    out = torch.empty((B, H, SQ, SK), dtype=scores.dtype, device=scores.device)
    BLOCK = triton.next_power_of_2(SK)
    num_warps = 4 if BLOCK <= 2048 else (8 if BLOCK <= 4096 else 16)
    _scale_mask_softmax_kernel[(B * H * SQ,)](scores, mask, out, H, SQ, SK, scale,
                                              BLOCK=BLOCK, num_warps=num_warps)
    return out
