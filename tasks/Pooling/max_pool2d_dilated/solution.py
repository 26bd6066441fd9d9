import torch
import triton
import triton.language as tl


@triton.jit
def _max_pool2d_dil_kernel(x_ptr, out_ptr, R, C, H, W, OH, OW,
                           stride_n, stride_c, stride_h, stride_w,
                           BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [R = N*C*OH, OW].
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < R
    col_mask = ow < OW
    oh = rows % OH
    nc = rows // OH
    c = nc % C
    n = nc // C
    base = n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c
    acc = tl.full([BLOCK_R, BLOCK_W], -float("inf"), dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = oh - 1 + 2 * kh
        hmask = row_mask & (ih >= 0) & (ih < H)
        hoff = base + ih.to(tl.int64) * stride_h
        for kw in tl.static_range(3):
            iw = ow - 1 + 2 * kw
            wmask = col_mask & (iw >= 0) & (iw < W)
            ptrs = x_ptr + hoff[:, None] + (iw.to(tl.int64) * stride_w)[None, :]
            v = tl.load(ptrs, mask=hmask[:, None] & wmask[None, :], other=-float("inf"))
            acc = tl.maximum(acc, v.to(tl.float32))
    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * OW + ow[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty),
             mask=row_mask[:, None] & col_mask[None, :])


def run(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    OH, OW = H - 2, W - 2
    out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    R = N * C * OH
    BLOCK_W = min(triton.next_power_of_2(OW), 128)
    BLOCK_R = max(1, 1024 // BLOCK_W)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(OW, BLOCK_W))
    _max_pool2d_dil_kernel[grid](x, out, R, C, H, W, OH, OW,
                                 x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                 BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
