import torch
import triton
import triton.language as tl


@triton.jit
def _keys_kernel(keys_ptr, total, seed, BLOCK: tl.constexpr):
    # A 32-bit Philox key for every (row, column), keyed on (seed, linear index).
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(keys_ptr + offs, tl.randint(seed, offs), mask=offs < total)


@triton.jit
def _randperm_kernel(keys_ptr, len_ptr, out_ptr, N, BLOCK_J: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    # out[j] = the rank of key j among the row's first L keys (ties broken by column): a uniform
    # permutation of 0 .. L-1 up to key ties (probability below L^2 / 2^33); -1 past L.
    row = tl.program_id(0)
    j = tl.program_id(1) * BLOCK_J + tl.arange(0, BLOCK_J)
    length = tl.load(len_ptr + row).to(tl.int32)
    base = row.to(tl.int64) * N
    key_j = tl.load(keys_ptr + base + j, mask=j < length, other=0)
    rank = tl.zeros((BLOCK_J,), tl.int32)
    for k0 in range(0, N, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        key_k = tl.load(keys_ptr + base + k, mask=k < length, other=0)
        before = (key_k[None, :] < key_j[:, None]) | \
            ((key_k[None, :] == key_j[:, None]) & (k[None, :] < j[:, None]))
        before = before & (k[None, :] < length)
        rank += tl.sum(before.to(tl.int32), axis=1)
    out = tl.where(j < length, rank, -1)
    tl.store(out_ptr + base + j, out.to(tl.int64), mask=j < N)


def run(lengths: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    m = lengths.shape[0]
    lens = lengths.contiguous()
    out = torch.empty((m, n), device=lens.device, dtype=torch.int64)
    keys = torch.empty((m, n), device=lens.device, dtype=torch.int32)
    BLOCK = 1024
    _keys_kernel[(triton.cdiv(m * n, BLOCK),)](keys, m * n, seed, BLOCK=BLOCK)
    BLOCK_J, BLOCK_K = 128, 128
    _randperm_kernel[(m, triton.cdiv(n, BLOCK_J))](keys, lens, out, n,
                                                    BLOCK_J=BLOCK_J, BLOCK_K=BLOCK_K)
    return out
