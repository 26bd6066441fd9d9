import torch
import triton
import triton.language as tl


@triton.jit
def _reflect(s, L):
    s = tl.where(s < 0, -s, s)
    return tl.where(s >= L, 2 * (L - 1) - s, s)


@triton.jit
def _pad_reflect_kernel(x_ptr, out_ptr, ROWS, C, H, W, OH, OW, PL, PT,
                        stride_n, stride_c, stride_h, stride_w,
                        BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [ROWS = N*C*OH, OW].
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < ROWS
    col_mask = ow < OW
    oh = rows % OH
    nc = rows // OH
    c = nc % C
    n = nc // C
    ih = _reflect(oh - PT, H)
    iw = _reflect(ow - PL, W)
    src_row = n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c + ih.to(tl.int64) * stride_h
    mask = row_mask[:, None] & col_mask[None, :]
    vals = tl.load(x_ptr + src_row[:, None] + (iw.to(tl.int64) * stride_w)[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * OW + ow[None, :], vals, mask=mask)


def run(x: torch.Tensor, pad) -> torch.Tensor:
    N, C, H, W = x.shape
    PL, PR, PT, PB = pad
    OH, OW = H + PT + PB, W + PL + PR
    out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    ROWS = N * C * OH
    BLOCK_W = min(triton.next_power_of_2(OW), 256)
    BLOCK_R = max(1, 2048 // BLOCK_W)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(OW, BLOCK_W))
    _pad_reflect_kernel[grid](x, out, ROWS, C, H, W, OH, OW, PL, PT,
                              x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                              BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
