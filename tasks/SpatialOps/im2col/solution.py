import torch
import triton
import triton.language as tl


@triton.jit
def _im2col_kernel(x_ptr, out_ptr, ROWS, C, H, W, OW, L,
                   stride_n, stride_c, stride_h, stride_w,
                   BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    # A [BLOCK_R, BLOCK_L] tile of the output viewed as [ROWS = N*C*9, L]: a row fixes
    # (n, c, kh, kw), a column fixes the patch position (oh, ow).
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ls = tl.program_id(1) * BLOCK_L + tl.arange(0, BLOCK_L)
    row_mask = rows < ROWS
    col_mask = ls < L
    kw = rows % 3
    kh = (rows // 3) % 3
    nc = rows // 9
    c = nc % C
    n = nc // C
    oh = ls // OW
    ow = ls % OW
    ih = 2 * oh[None, :] - 1 + kh[:, None]
    iw = 2 * ow[None, :] - 1 + kw[:, None]
    inside = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    mask = row_mask[:, None] & col_mask[None, :]
    base = (n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c)[:, None]
    src = base + ih.to(tl.int64) * stride_h + iw.to(tl.int64) * stride_w
    vals = tl.load(x_ptr + src, mask=mask & inside, other=0.0)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * L + ls[None, :], vals, mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    OH, OW = (H - 1) // 2 + 1, (W - 1) // 2 + 1
    L = OH * OW
    out = torch.empty((N, C * 9, L), dtype=x.dtype, device=x.device)
    ROWS = N * C * 9
    BLOCK_L = min(triton.next_power_of_2(L), 256)
    BLOCK_R = max(1, 2048 // BLOCK_L)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(L, BLOCK_L))
    _im2col_kernel[grid](x, out, ROWS, C, H, W, OW, L,
                         x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                         BLOCK_R=BLOCK_R, BLOCK_L=BLOCK_L, num_warps=4)
    return out
