import torch
import triton
import triton.language as tl


@triton.jit
def _max_pool2d_bwd_kernel(g_ptr, idx_ptr, out_ptr, R, H, W, OH, OW,
                           BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # Gather form (no atomics): each grad_x element checks the at most 2 x 2 windows that cover
    # it and adds the gradient of those whose saved argmax is this element.
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    w = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < R
    col_mask = w < W
    h = rows % H
    nc = rows // H
    plane = nc.to(tl.int64) * OH * OW
    me = h.to(tl.int64)[:, None] * W + w[None, :]
    acc = tl.zeros([BLOCK_R, BLOCK_W], dtype=tl.float32)
    for a in tl.static_range(2):
        i = (h + 1) // 2 - a
        iok = row_mask & (i >= 0) & (i < OH) & (2 * i - 1 <= h) & (h <= 2 * i + 1)
        for b in tl.static_range(2):
            j = (w + 1) // 2 - b
            jok = col_mask & (j >= 0) & (j < OW) & (2 * j - 1 <= w) & (w <= 2 * j + 1)
            m = iok[:, None] & jok[None, :]
            off = (plane + i.to(tl.int64) * OW)[:, None] + j[None, :]
            won = tl.load(idx_ptr + off, mask=m, other=-1) == me
            acc += tl.load(g_ptr + off, mask=m & won, other=0.0).to(tl.float32)
    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * W + w[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty),
             mask=row_mask[:, None] & col_mask[None, :])


def run(x: torch.Tensor, grad_out: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    OH, OW = grad_out.shape[2], grad_out.shape[3]
    g = grad_out.contiguous()
    idx = indices.contiguous()
    out = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    R = N * C * H
    BLOCK_W = min(triton.next_power_of_2(W), 128)
    BLOCK_R = max(1, 1024 // BLOCK_W)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(W, BLOCK_W))
    _max_pool2d_bwd_kernel[grid](g, idx, out, R, H, W, OH, OW, BLOCK_R=BLOCK_R,
                                 BLOCK_W=BLOCK_W, num_warps=4)
    return out
