import torch
import triton
import triton.language as tl


@triton.jit
def _searchsorted_kernel(b_ptr, v_ptr, out_ptr, B, n, n_steps, BLOCK: tl.constexpr):
    # Lower-bound binary search, all lanes in lockstep: [lo, hi) shrinks until lo == hi.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    lo = tl.zeros([BLOCK], dtype=tl.int32)
    hi = tl.zeros([BLOCK], dtype=tl.int32) + B
    for _ in range(0, n_steps):
        active = lo < hi
        mid = (lo + hi) // 2
        b = tl.load(b_ptr + mid, mask=mask & active, other=0.0).to(tl.float32)
        right = active & (b < v)
        lo = tl.where(right, mid + 1, lo)
        hi = tl.where(active & (b >= v), mid, hi)
    tl.store(out_ptr + offs, lo.to(tl.int64), mask=mask)


def run(boundaries: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    B = boundaries.shape[0]
    boundaries = boundaries.contiguous()
    values = values.contiguous()
    out = torch.empty(values.shape, dtype=torch.int64, device=values.device)
    n = values.numel()
    n_steps = B.bit_length()  # ceil(log2(B + 1)) halvings empty any [0, B] interval
    BLOCK = 1024
    _searchsorted_kernel[(triton.cdiv(n, BLOCK),)](boundaries, values, out, B, n, n_steps,
                                                   BLOCK=BLOCK, num_warps=4)
    return out
