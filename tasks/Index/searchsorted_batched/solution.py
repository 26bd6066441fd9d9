import torch
import triton
import triton.language as tl


@triton.jit
def _searchsorted_rows_kernel(s_ptr, v_ptr, out_ptr, M, B, K, n_steps,
                              BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    # Upper-bound binary search, all lanes in lockstep: [lo, hi) shrinks until lo == hi.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    mask = (rows < M)[:, None] & (cols < K)[None, :]
    r64 = rows.to(tl.int64)[:, None]
    v = tl.load(v_ptr + r64 * K + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    lo = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.int32)
    hi = lo + B
    row_base = s_ptr + r64 * B
    for _ in range(0, n_steps):
        active = lo < hi
        mid = (lo + hi) // 2
        s = tl.load(row_base + mid, mask=mask & active, other=0.0).to(tl.float32)
        right = active & (s <= v)
        lo = tl.where(right, mid + 1, lo)
        hi = tl.where(active & (s > v), mid, hi)
    tl.store(out_ptr + r64 * K + cols[None, :], lo.to(tl.int64), mask=mask)


def run(sorted_seq: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    M, B = sorted_seq.shape
    K = values.shape[1]
    sorted_seq = sorted_seq.contiguous()
    values = values.contiguous()
    out = torch.empty((M, K), dtype=torch.int64, device=values.device)
    BLOCK_K = min(triton.next_power_of_2(K), 256)
    BLOCK_M = max(1, 1024 // BLOCK_K)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(K, BLOCK_K))
    _searchsorted_rows_kernel[grid](sorted_seq, values, out, M, B, K, B.bit_length(),
                                    BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, num_warps=4)
    return out
