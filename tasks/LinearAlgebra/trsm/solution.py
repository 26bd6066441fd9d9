import torch
import triton
import triton.language as tl


@triton.jit
def _trsm_upper_kernel(a_ptr, b_ptr, x_ptr, N, K, stride_a, BLOCK_R: tl.constexpr,
                       BLOCK_K: tl.constexpr, BLOCK_J: tl.constexpr):
    # One program per block of right-hand-side columns: blocked back substitution, blocks of
    # BLOCK_R rows from the bottom, x[i] = (b[i] - sum_{j > i} a[i, j] x[j]) / a[i, i]. For a
    # block, the rows solved before (j past the block) come in through float32 tl.dot over
    # blocks of j; then the block's own rows are substituted from its last up. The solved rows
    # live in a float32 scratch (not rounded to the output dtype); only the upper triangle of a
    # is read (every load of a is masked to j >= i).
    cols = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    cmask = cols < K
    r = tl.arange(0, BLOCK_R)
    jr = tl.arange(0, BLOCK_J)
    for s in range(0, (N + BLOCK_R - 1) // BLOCK_R):
        hi = N - s * BLOCK_R  # the block: rows hi - BLOCK_R .. hi - 1, those >= 0
        rows = hi - BLOCK_R + r
        rmask = rows >= 0
        a_rows = a_ptr + rows.to(tl.int64) * stride_a
        x_rows = x_ptr + rows[:, None].to(tl.int64) * K + cols[None, :]
        solved = tl.zeros((BLOCK_R, BLOCK_K), dtype=tl.float32)  # sum_{j >= hi} a[i, j] x[j]
        for j0 in range(hi, N, BLOCK_J):  # j >= hi > i: the upper triangle
            j = j0 + jr
            jmask = j < N
            a_blk = tl.load(a_rows[:, None] + j[None, :], mask=rmask[:, None] & jmask[None, :],
                            other=0.0).to(tl.float32)
            x_blk = tl.load(x_ptr + j[:, None].to(tl.int64) * K + cols[None, :],
                            mask=jmask[:, None] & cmask[None, :], other=0.0)
            solved = tl.dot(a_blk, x_blk, solved, input_precision="ieee")
        bmask = rmask[:, None] & cmask[None, :]
        acc = tl.load(b_ptr + rows[:, None].to(tl.int64) * K + cols[None, :], mask=bmask,
                      other=0.0).to(tl.float32) - solved
        # The block's own rows: their residuals go to the scratch, where row i is read back
        # (by other threads) and replaced by x[i]; the rows p < i of the block then take off
        # a[p, i] x[i] (column i of the upper triangle above the diagonal).
        tl.store(x_rows, acc, mask=bmask)
        tl.debug_barrier()
        for step in range(0, hi - tl.maximum(hi - BLOCK_R, 0)):
            i = hi - 1 - step
            x_i_ptrs = x_ptr + i.to(tl.int64) * K + cols
            x_i = tl.load(x_i_ptrs, mask=cmask, other=0.0) / \
                tl.load(a_ptr + i.to(tl.int64) * (stride_a + 1)).to(tl.float32)
            tl.store(x_i_ptrs, x_i, mask=cmask)
            above = rmask & (rows < i)
            a_col = tl.load(a_rows + i, mask=above, other=0.0).to(tl.float32)
            acc -= a_col[:, None] * x_i[None, :]
            tl.store(x_rows, acc, mask=above[:, None] & cmask[None, :])
            tl.debug_barrier()  # row i - 1 is read next, and every row by later blocks


@triton.jit
def _cast_kernel(src_ptr, dst_ptr, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    v = tl.load(src_ptr + offs, mask=mask)
    tl.store(dst_ptr + offs, v.to(dst_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    n = a.shape[0]
    k = b.shape[1]
    ac, bc = a.contiguous(), b.contiguous()
    x32 = torch.empty((n, k), device=b.device, dtype=torch.float32)
    BLOCK_R, BLOCK_K, BLOCK_J = 32, 32, 64
    _trsm_upper_kernel[(triton.cdiv(k, BLOCK_K),)](ac, bc, x32, n, k, ac.stride(0),
                                                   BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K,
                                                   BLOCK_J=BLOCK_J)
    out = torch.empty((n, k), device=b.device, dtype=b.dtype)
    BLOCK = 1024
    _cast_kernel[(triton.cdiv(n * k, BLOCK),)](x32, out, n * k, BLOCK=BLOCK)
    return out
