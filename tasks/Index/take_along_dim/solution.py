import torch
import triton
import triton.language as tl


@triton.jit
def _take_rows_kernel(x_ptr, idx_ptr, out_ptr, BK, K, D, stride_xb, stride_xn, stride_xd,
                      BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    # A tile of [BLOCK_R output rows (b, k), BLOCK_D features]: one index load per row.
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    rmask = rows < BK
    mask = rmask[:, None] & (cols < D)[None, :]
    src_row = tl.load(idx_ptr + rows, mask=rmask, other=0)
    b = (rows // K).to(tl.int64)
    base = b * stride_xb + src_row * stride_xn
    vals = tl.load(x_ptr + base[:, None] + cols[None, :].to(tl.int64) * stride_xd, mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * D + cols[None, :], vals, mask=mask)


def run(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    B, N, D = x.shape
    K = idx.shape[1]
    idx = idx.contiguous()
    out = torch.empty((B, K, D), dtype=x.dtype, device=x.device)
    BLOCK_D = min(triton.next_power_of_2(D), 512)
    BLOCK_R = max(1, 4096 // BLOCK_D)
    grid = (triton.cdiv(B * K, BLOCK_R), triton.cdiv(D, BLOCK_D))
    _take_rows_kernel[grid](x, idx, out, B * K, K, D, x.stride(0), x.stride(1), x.stride(2),
                            BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D, num_warps=4)
    return out
