import torch
import triton
import triton.language as tl


@triton.jit
def _max_pool1d_kernel(x_ptr, out_ptr, R, C, L, OL, stride_n, stride_c, stride_l,
                       BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr):
    # A [BLOCK_R, BLOCK_L] tile of the output viewed as [R = N*C, OL].
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ol = tl.program_id(1) * BLOCK_L + tl.arange(0, BLOCK_L)
    row_mask = rows < R
    col_mask = ol < OL
    c = rows % C
    n = rows // C
    base = n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c
    acc = tl.full([BLOCK_R, BLOCK_L], -float("inf"), dtype=tl.float32)
    for k in tl.static_range(3):
        il = 2 * ol - 1 + k
        m = row_mask[:, None] & (col_mask & (il >= 0) & (il < L))[None, :]
        v = tl.load(x_ptr + base[:, None] + (il.to(tl.int64) * stride_l)[None, :], mask=m,
                    other=-float("inf"))
        acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * OL + ol[None, :],
             acc.to(out_ptr.dtype.element_ty), mask=row_mask[:, None] & col_mask[None, :])


def run(x: torch.Tensor) -> torch.Tensor:
    N, C, L = x.shape
    OL = (L - 1) // 2 + 1
    out = torch.empty((N, C, OL), dtype=x.dtype, device=x.device)
    R = N * C
    BLOCK_L = min(triton.next_power_of_2(OL), 256)
    BLOCK_R = max(1, 2048 // BLOCK_L)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(OL, BLOCK_L))
    _max_pool1d_kernel[grid](x, out, R, C, L, OL, x.stride(0), x.stride(1), x.stride(2),
                             BLOCK_R=BLOCK_R, BLOCK_L=BLOCK_L, num_warps=4)
    return out
