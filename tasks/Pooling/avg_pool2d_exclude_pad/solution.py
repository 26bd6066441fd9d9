import torch
import triton
import triton.language as tl


@triton.jit
def _box3_kernel(x_ptr, out_ptr, R, C, H, W, stride_n, stride_c, stride_h, stride_w,
                 BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [R = N*C*H, W].
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < R
    col_mask = ow < W
    oh = rows % H
    nc = rows // H
    c = nc % C
    n = nc // C
    base = n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c
    acc = tl.zeros([BLOCK_R, BLOCK_W], dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = oh - 1 + kh
        hmask = row_mask & (ih >= 0) & (ih < H)
        hoff = base + ih.to(tl.int64) * stride_h
        for kw in tl.static_range(3):
            iw = ow - 1 + kw
            wmask = col_mask & (iw >= 0) & (iw < W)
            ptrs = x_ptr + hoff[:, None] + (iw.to(tl.int64) * stride_w)[None, :]
            acc += tl.load(ptrs, mask=hmask[:, None] & wmask[None, :], other=0.0).to(tl.float32)
    # number of in-bounds rows and columns of each window
    nh = tl.minimum(oh + 1, H - 1) - tl.maximum(oh - 1, 0) + 1
    nw = tl.minimum(ow + 1, W - 1) - tl.maximum(ow - 1, 0) + 1
    out = acc / (nh[:, None] * nw[None, :]).to(tl.float32)
    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * W + ow[None, :]
    tl.store(out_ptrs, out.to(out_ptr.dtype.element_ty),
             mask=row_mask[:, None] & col_mask[None, :])


def run(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    out = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    R = N * C * H
    BLOCK_W = min(triton.next_power_of_2(W), 128)
    BLOCK_R = max(1, 1024 // BLOCK_W)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(W, BLOCK_W))
    _box3_kernel[grid](x, out, R, C, H, W, x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                       BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
