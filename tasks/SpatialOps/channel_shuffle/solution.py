import torch
import triton
import triton.language as tl


@triton.jit
def _channel_shuffle_kernel(x_ptr, out_ptr, ROWS, C, G, K, H, W,
                            stride_n, stride_c, stride_h, stride_w,
                            BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [ROWS = N*C*H, W]: output channel
    # k * G + g reads input channel g * K + k.
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    w = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < ROWS
    col_mask = w < W
    h = rows % H
    t = rows // H
    oc = t % C
    n = t // C
    src_c = (oc % G) * K + oc // G
    src = (n.to(tl.int64) * stride_n + src_c.to(tl.int64) * stride_c
           + h.to(tl.int64) * stride_h)
    mask = row_mask[:, None] & col_mask[None, :]
    vals = tl.load(x_ptr + src[:, None] + (w.to(tl.int64) * stride_w)[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * W + w[None, :], vals, mask=mask)


def run(x: torch.Tensor, groups: int) -> torch.Tensor:
    N, C, H, W = x.shape
    K = C // groups
    out = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    ROWS = N * C * H
    BLOCK_W = min(triton.next_power_of_2(W), 128)
    BLOCK_R = max(1, 2048 // BLOCK_W)
    grid = (triton.cdiv(ROWS, BLOCK_R), triton.cdiv(W, BLOCK_W))
    _channel_shuffle_kernel[grid](x, out, ROWS, C, groups, K, H, W,
                                  x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                  BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
