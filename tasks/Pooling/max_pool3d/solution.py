import torch
import triton
import triton.language as tl


@triton.jit
def _max_pool3d_kernel(x_ptr, out_ptr, R, C, D, H, W, OD, OH, OW,
                       stride_n, stride_c, stride_d, stride_h, stride_w,
                       BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [R = N*C*OD*OH, OW].
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < R
    col_mask = ow < OW
    oh = rows % OH
    t = rows // OH
    od = t % OD
    nc = t // OD
    c = nc % C
    n = nc // C
    base = n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c
    acc = tl.full([BLOCK_R, BLOCK_W], -float("inf"), dtype=tl.float32)
    for kd in tl.static_range(3):
        idd = 2 * od - 1 + kd
        dmask = row_mask & (idd >= 0) & (idd < D)
        for kh in tl.static_range(3):
            ih = 2 * oh - 1 + kh
            hmask = dmask & (ih >= 0) & (ih < H)
            hoff = base + idd.to(tl.int64) * stride_d + ih.to(tl.int64) * stride_h
            for kw in tl.static_range(3):
                iw = 2 * ow - 1 + kw
                wmask = col_mask & (iw >= 0) & (iw < W)
                ptrs = x_ptr + hoff[:, None] + (iw.to(tl.int64) * stride_w)[None, :]
                v = tl.load(ptrs, mask=hmask[:, None] & wmask[None, :], other=-float("inf"))
                acc = tl.maximum(acc, v.to(tl.float32))
    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * OW + ow[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty),
             mask=row_mask[:, None] & col_mask[None, :])


def run(x: torch.Tensor) -> torch.Tensor:
    N, C, D, H, W = x.shape
    OD, OH, OW = (D - 1) // 2 + 1, (H - 1) // 2 + 1, (W - 1) // 2 + 1
    out = torch.empty((N, C, OD, OH, OW), dtype=x.dtype, device=x.device)
    R = N * C * OD * OH
    BLOCK_W = min(triton.next_power_of_2(OW), 64)
    BLOCK_R = max(1, 512 // BLOCK_W)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(OW, BLOCK_W))
    _max_pool3d_kernel[grid](x, out, R, C, D, H, W, OD, OH, OW,
                             x.stride(0), x.stride(1), x.stride(2), x.stride(3), x.stride(4),
                             BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
