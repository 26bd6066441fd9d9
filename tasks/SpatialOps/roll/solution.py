import torch
import triton
import triton.language as tl


@triton.jit
def _roll_hw_kernel(x_ptr, out_ptr, ROWS, H, W, C, sh, sw,
                    stride_b, stride_h, stride_w, stride_c,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    # A [BLOCK_R positions (b, i, j), BLOCK_C channels] tile of the output; sh, sw are already
    # reduced to [0, H) and [0, W).
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cs = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    row_mask = rows < ROWS
    j = rows % W
    t = rows // W
    i = t % H
    b = t // H
    si = i - sh
    si = tl.where(si < 0, si + H, si)
    sj = j - sw
    sj = tl.where(sj < 0, sj + W, sj)
    src = b.to(tl.int64) * stride_b + si.to(tl.int64) * stride_h + sj.to(tl.int64) * stride_w
    mask = row_mask[:, None] & (cs < C)[None, :]
    vals = tl.load(x_ptr + src[:, None] + (cs.to(tl.int64) * stride_c)[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * C + cs[None, :], vals, mask=mask)


def run(x: torch.Tensor, shift_h: int, shift_w: int) -> torch.Tensor:
    B, H, W, C = x.shape
    out = torch.empty((B, H, W, C), dtype=x.dtype, device=x.device)
    ROWS = B * H * W
    BLOCK_C = min(triton.next_power_of_2(C), 256)
    BLOCK_R = max(1, 2048 // BLOCK_C)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(C, BLOCK_C))
    _roll_hw_kernel[grid](x, out, ROWS, H, W, C, shift_h % H, shift_w % W,
                          x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                          BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
    return out
