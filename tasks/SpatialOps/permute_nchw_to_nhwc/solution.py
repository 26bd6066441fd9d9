import torch
import triton
import triton.language as tl


@triton.jit
def _nchw_to_nhwc_kernel(x_ptr, out_ptr, C, HW, BLOCK_C: tl.constexpr, BLOCK_P: tl.constexpr):
    # Program (n, block of positions, block of channels): a [BLOCK_C, BLOCK_P] tile is read
    # along the contiguous positions and written transposed along the contiguous channels.
    n = tl.program_id(0).to(tl.int64)
    ps = tl.program_id(1) * BLOCK_P + tl.arange(0, BLOCK_P)
    cs = tl.program_id(2) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (cs < C)[:, None] & (ps < HW)[None, :]
    tile = tl.load(x_ptr + n * C * HW + cs.to(tl.int64)[:, None] * HW + ps[None, :], mask=mask)
    out_t = tl.trans(tile)
    mask_t = (ps < HW)[:, None] & (cs < C)[None, :]
    tl.store(out_ptr + n * HW * C + ps.to(tl.int64)[:, None] * C + cs[None, :], out_t,
             mask=mask_t)


def run(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    x = x.contiguous()
    out = torch.empty((N, H, W, C), dtype=x.dtype, device=x.device)
    HW = H * W
    BLOCK_C = min(triton.next_power_of_2(C), 64)
    BLOCK_P = min(triton.next_power_of_2(HW), 64)
    grid = (N, triton.cdiv(HW, BLOCK_P), triton.cdiv(C, BLOCK_C))
    _nchw_to_nhwc_kernel[grid](x, out, C, HW, BLOCK_C=BLOCK_C, BLOCK_P=BLOCK_P, num_warps=4)
    return out
