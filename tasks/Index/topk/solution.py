import torch
import triton
import triton.language as tl


@triton.jit
def _topk_kernel(x_ptr, val_ptr, idx_ptr, M, N, K,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # BLOCK_M whole rows per program; k rounds of (row max, lowest column holding it).
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < M
    r64 = rows.to(tl.int64)
    valid = rmask[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + r64[:, None] * N + cols[None, :], mask=valid,
                other=-float("inf")).to(tl.float32)
    avail = valid
    kk = tl.arange(0, BLOCK_K)
    sel = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.int32)
    for j in range(0, K):
        key = tl.where(avail, x, -float("inf"))
        m = tl.max(key, axis=1)
        hit = avail & (key == m[:, None])
        pick = tl.min(tl.where(hit, cols[None, :], BLOCK_N), axis=1)
        avail = avail & (cols[None, :] != pick[:, None])
        sel = tl.where(kk[None, :] == j, pick[:, None], sel)
    omask = rmask[:, None] & (kk < K)[None, :]
    vals = tl.load(x_ptr + r64[:, None] * N + sel, mask=omask)
    out_offs = r64[:, None] * K + kk[None, :]
    tl.store(val_ptr + out_offs, vals, mask=omask)
    tl.store(idx_ptr + out_offs, sel.to(tl.int64), mask=omask)


def run(x: torch.Tensor, k: int):
    M, N = x.shape
    x = x.contiguous()
    values = torch.empty((M, k), dtype=x.dtype, device=x.device)
    indices = torch.empty((M, k), dtype=torch.int64, device=x.device)
    BLOCK_N = triton.next_power_of_2(N)
    BLOCK_M = max(1, 2048 // BLOCK_N)
    BLOCK_K = triton.next_power_of_2(k)
    num_warps = 4 if BLOCK_N <= 2048 else 8
    _topk_kernel[(triton.cdiv(M, BLOCK_M),)](x, values, indices, M, N, k, BLOCK_M=BLOCK_M,
                                             BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                             num_warps=num_warps)
    return values, indices
