import torch
import triton
import triton.language as tl


@triton.jit
def _paged_gather_kernel(cache_ptr, bt_ptr, cu_ptr, out_ptr, TT, B, MB, BS, F, n_steps,
                         BLOCK_T: tl.constexpr, BLOCK_F: tl.constexpr):
    # A tile of [BLOCK_T packed tokens, BLOCK_F features of H * D]. Each token finds its
    # sequence by a binary search in cu_seqlens: the last b with cu_seqlens[b] <= t.
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    fs = tl.program_id(1) * BLOCK_F + tl.arange(0, BLOCK_F)
    tmask = toks < TT
    lo = tl.zeros([BLOCK_T], dtype=tl.int32)
    hi = tl.zeros([BLOCK_T], dtype=tl.int32) + (B + 1)
    for _ in range(0, n_steps):
        active = lo < hi
        mid = (lo + hi) // 2
        c = tl.load(cu_ptr + mid, mask=tmask & active, other=0)
        right = active & (c <= toks)
        lo = tl.where(right, mid + 1, lo)
        hi = tl.where(active & (c > toks), mid, hi)
    seq = lo - 1
    seq = tl.where(tmask, seq, 0)
    p = toks - tl.load(cu_ptr + seq, mask=tmask, other=0)
    blk = tl.load(bt_ptr + seq.to(tl.int64) * MB + p // BS, mask=tmask, other=0)
    row = blk.to(tl.int64) * BS + p % BS
    mask = tmask[:, None] & (fs < F)[None, :]
    vals = tl.load(cache_ptr + row[:, None] * F + fs[None, :], mask=mask)
    tl.store(out_ptr + toks.to(tl.int64)[:, None] * F + fs[None, :], vals, mask=mask)


def run(cache: torch.Tensor, block_table: torch.Tensor, cu_seqlens: torch.Tensor,
        total_tokens: int) -> torch.Tensor:
    NB, BS, H, D = cache.shape
    B, MB = block_table.shape
    cache = cache.contiguous()
    block_table = block_table.contiguous()
    cu_seqlens = cu_seqlens.contiguous()
    F = H * D
    out = torch.empty((total_tokens, H, D), dtype=cache.dtype, device=cache.device)
    BLOCK_F = min(triton.next_power_of_2(F), 1024)
    BLOCK_T = max(1, 4096 // BLOCK_F)
    grid = (triton.cdiv(total_tokens, BLOCK_T), triton.cdiv(F, BLOCK_F))
    _paged_gather_kernel[grid](cache, block_table, cu_seqlens, out, total_tokens, B, MB, BS, F,
                               (B + 1).bit_length(), BLOCK_T=BLOCK_T, BLOCK_F=BLOCK_F,
                               num_warps=4)
    return out
