import torch
import triton
import triton.language as tl


@triton.jit
def _pixel_shuffle_kernel(x_ptr, out_ptr, ROWS, C, H, W, r,
                          stride_n, stride_c, stride_h, stride_w,
                          BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [ROWS = N*C*H*r, W*r]. The source
    # address splits into a part that depends on the output row (n, c, h, i) and one that
    # depends on the output column (w, j).
    OH = H * r
    OW = W * r
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < ROWS
    col_mask = ow < OW
    oh = rows % OH
    nc = rows // OH
    c = nc % C
    n = nc // C
    h = oh // r
    i = oh % r
    w = ow // r
    j = ow % r
    row_off = (n.to(tl.int64) * stride_n + ((c * r + i) * r).to(tl.int64) * stride_c
               + h.to(tl.int64) * stride_h)
    col_off = j.to(tl.int64) * stride_c + w.to(tl.int64) * stride_w
    mask = row_mask[:, None] & col_mask[None, :]
    vals = tl.load(x_ptr + row_off[:, None] + col_off[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * OW + ow[None, :], vals, mask=mask)


def run(x: torch.Tensor, r: int) -> torch.Tensor:
    N, CRR, H, W = x.shape
    C = CRR // (r * r)
    out = torch.empty((N, C, H * r, W * r), dtype=x.dtype, device=x.device)
    ROWS, OW = N * C * H * r, W * r
    BLOCK_W = min(triton.next_power_of_2(OW), 256)
    BLOCK_R = max(1, 2048 // BLOCK_W)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(OW, BLOCK_W))
    _pixel_shuffle_kernel[grid](x, out, ROWS, C, H, W, r,
                                x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
