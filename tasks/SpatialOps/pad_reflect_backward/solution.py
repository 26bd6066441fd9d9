import torch
import triton
import triton.language as tl


@triton.jit
def _pad_reflect_bwd_kernel(g_ptr, out_ptr, ROWS, H, W, OH, OW, PL, PT,
                            BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # Gather form (no atomics): element h of an axis of length L with leading pad P receives
    # from padded positions h + P (itself), P - h (its mirror in the leading pad, h >= 1) and
    # P + 2 (L - 1) - h (its mirror in the trailing pad, h <= L - 2), where those exist.
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    w = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < ROWS
    col_mask = w < W
    h = rows % H
    nc = rows // H
    plane = nc.to(tl.int64) * OH * OW
    acc = tl.zeros([BLOCK_R, BLOCK_W], dtype=tl.float32)
    for a in tl.static_range(3):
        if a == 0:
            i = h + PT
            iok = row_mask
        elif a == 1:
            i = PT - h
            iok = row_mask & (h >= 1) & (i >= 0)
        else:
            i = PT + 2 * (H - 1) - h
            iok = row_mask & (h <= H - 2) & (i < OH)
        for b in tl.static_range(3):
            if b == 0:
                j = w + PL
                jok = col_mask
            elif b == 1:
                j = PL - w
                jok = col_mask & (w >= 1) & (j >= 0)
            else:
                j = PL + 2 * (W - 1) - w
                jok = col_mask & (w <= W - 2) & (j < OW)
            ptrs = g_ptr + (plane + i.to(tl.int64) * OW)[:, None] + j[None, :]
            acc += tl.load(ptrs, mask=iok[:, None] & jok[None, :], other=0.0).to(tl.float32)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * W + w[None, :],
             acc.to(out_ptr.dtype.element_ty), mask=row_mask[:, None] & col_mask[None, :])


def run(x: torch.Tensor, pad, grad_out: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    PL, PR, PT, PB = pad
    OH, OW = H + PT + PB, W + PL + PR
    g = grad_out.contiguous()
    out = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    ROWS = N * C * H
    BLOCK_W = min(triton.next_power_of_2(W), 128)
    BLOCK_R = max(1, 1024 // BLOCK_W)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(W, BLOCK_W))
    _pad_reflect_bwd_kernel[grid](g, out, ROWS, H, W, OH, OW, PL, PT, BLOCK_R=BLOCK_R,
                                  BLOCK_W=BLOCK_W, num_warps=4)
    return out
