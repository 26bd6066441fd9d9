import torch
import triton
import triton.language as tl


@triton.jit
def _max_idx_kernel(x_ptr, val_ptr, idx_ptr, N, D, sb, sn, sd,
                    BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # Program (b, strip of BLOCK_D features): walk n in order; every (n-lane, d) keeps its
    # earliest maximum (strict > replaces); the smallest n among the lanes holding the maximum
    # wins.
    b = tl.program_id(0)
    ds = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    dmask = ds < D
    base = x_ptr + b.to(tl.int64) * sb
    best = tl.full([BLOCK_N, BLOCK_D], -float("inf"), dtype=tl.float32)
    best_idx = tl.full([BLOCK_N, BLOCK_D], 2147483647, dtype=tl.int32)
    for start in range(0, N, BLOCK_N):
        ns = start + tl.arange(0, BLOCK_N)
        mask = (ns < N)[:, None] & dmask[None, :]
        ptrs = base + ns.to(tl.int64)[:, None] * sn + ds.to(tl.int64)[None, :] * sd
        x = tl.load(ptrs, mask=mask, other=-float("inf")).to(tl.float32)
        take = (x > best) & mask
        best = tl.where(take, x, best)
        best_idx = tl.where(take, ns[:, None], best_idx)
    m = tl.max(best, axis=0)
    idx = tl.min(tl.where(best == m[None, :], best_idx, 2147483647), axis=0)
    o = b.to(tl.int64) * D + ds
    tl.store(val_ptr + o, m.to(val_ptr.dtype.element_ty), mask=dmask)
    tl.store(idx_ptr + o, idx.to(tl.int64), mask=dmask)


def run(x: torch.Tensor):
    B, N, D = x.shape
    values = torch.empty((B, D), dtype=x.dtype, device=x.device)
    indices = torch.empty((B, D), dtype=torch.int64, device=x.device)
    BLOCK_D = min(triton.next_power_of_2(D), 32)
    BLOCK_N = min(triton.next_power_of_2(N), 64)
    _max_idx_kernel[(B, triton.cdiv(D, BLOCK_D))](x, values, indices, N, D, x.stride(0),
                                                  x.stride(1), x.stride(2), BLOCK_N=BLOCK_N,
                                                  BLOCK_D=BLOCK_D, num_warps=4)
    return values, indices
