import torch
import triton
import triton.language as tl


@triton.jit
def _pixel_unshuffle_kernel(x_ptr, out_ptr, ROWS, CRR, H, W, r,
                            stride_n, stride_c, stride_h, stride_w,
                            BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [ROWS = N*C*r*r*H, W]: the output
    # channel c * r * r + i * r + j and row h fix the source channel c and row h * r + i; the
    # output column w reads source column w * r + j.
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    w = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < ROWS
    col_mask = w < W
    h = rows % H
    t = rows // H
    oc = t % CRR
    n = t // CRR
    j = oc % r
    i = (oc // r) % r
    c = oc // (r * r)
    row_off = (n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c
               + (h * r + i).to(tl.int64) * stride_h + j.to(tl.int64) * stride_w)
    col_off = (w * r).to(tl.int64) * stride_w
    mask = row_mask[:, None] & col_mask[None, :]
    vals = tl.load(x_ptr + row_off[:, None] + col_off[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * W + w[None, :], vals, mask=mask)


def run(x: torch.Tensor, r: int) -> torch.Tensor:
    N, C, HR, WR = x.shape
    H, W = HR // r, WR // r
    CRR = C * r * r
    out = torch.empty((N, CRR, H, W), dtype=x.dtype, device=x.device)
    ROWS = N * CRR * H
    BLOCK_W = min(triton.next_power_of_2(W), 256)
    BLOCK_R = max(1, 2048 // BLOCK_W)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(W, BLOCK_W))
    _pixel_unshuffle_kernel[grid](x, out, ROWS, CRR, H, W, r,
                                  x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                  BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
