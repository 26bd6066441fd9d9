import torch
import triton
import triton.language as tl


@triton.jit
def _col2im_kernel(cols_ptr, out_ptr, ROWS, C, H, W, OH, OW,
                   BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # Gather form (no atomics): output (h, w) collects, for each kernel offset (kh, kw), the
    # patch (oh, ow) = ((h + 1 - kh) / 2, (w + 1 - kw) / 2) when that is a whole, in-range index.
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    w = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < ROWS
    col_mask = w < W
    h = rows % H
    nc = rows // H
    L = OH * OW
    acc = tl.zeros([BLOCK_R, BLOCK_W], dtype=tl.float32)
    for kh in tl.static_range(3):
        th = h + 1 - kh
        oh = th // 2
        hok = row_mask & (th >= 0) & ((th % 2) == 0) & (oh < OH)
        for kw in tl.static_range(3):
            tw = w + 1 - kw
            ow = tw // 2
            wok = col_mask & (tw >= 0) & ((tw % 2) == 0) & (ow < OW)
            row = (nc.to(tl.int64) * 9 + kh * 3 + kw) * L + oh * OW
            ptrs = cols_ptr + row[:, None] + ow[None, :]
            acc += tl.load(ptrs, mask=hok[:, None] & wok[None, :], other=0.0).to(tl.float32)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * W + w[None, :],
             acc.to(out_ptr.dtype.element_ty), mask=row_mask[:, None] & col_mask[None, :])


def run(cols: torch.Tensor, H: int, W: int) -> torch.Tensor:
    N, CK, L = cols.shape
    C = CK // 9
    OH, OW = (H - 1) // 2 + 1, (W - 1) // 2 + 1
    cols = cols.contiguous()
    out = torch.empty((N, C, H, W), dtype=cols.dtype, device=cols.device)
    ROWS = N * C * H
    BLOCK_W = min(triton.next_power_of_2(W), 128)
    BLOCK_R = max(1, 1024 // BLOCK_W)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(W, BLOCK_W))
    _col2im_kernel[grid](cols, out, ROWS, C, H, W, OH, OW, BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W,
                         num_warps=4)
    return out
