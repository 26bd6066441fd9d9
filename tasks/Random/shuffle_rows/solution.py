import torch
import triton
import triton.language as tl


@triton.jit
def _keys_kernel(keys_ptr, total, seed, BLOCK: tl.constexpr):
    # A 32-bit Philox key for every element, keyed on (seed, linear index).
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(keys_ptr + offs, tl.randint(seed, offs), mask=offs < total)


@triton.jit
def _shuffle_rows_kernel(x_ptr, keys_ptr, out_ptr, N, stride_r, stride_c,
                         BLOCK_J: tl.constexpr, BLOCK_K: tl.constexpr):
    # An element's destination is the rank of its key among its row's keys (ties broken by
    # column): a uniform permutation of the row up to key ties (probability below N^2 / 2^33).
    row = tl.program_id(0)
    j = tl.program_id(1) * BLOCK_J + tl.arange(0, BLOCK_J)
    jmask = j < N
    base = row.to(tl.int64) * N
    key_j = tl.load(keys_ptr + base + j, mask=jmask, other=0)
    rank = tl.zeros((BLOCK_J,), tl.int32)
    for k0 in range(0, N, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        key_k = tl.load(keys_ptr + base + k, mask=k < N, other=0)
        before = (key_k[None, :] < key_j[:, None]) | \
            ((key_k[None, :] == key_j[:, None]) & (k[None, :] < j[:, None]))
        before = before & (k[None, :] < N)
        rank += tl.sum(before.to(tl.int32), axis=1)
    vals = tl.load(x_ptr + row * stride_r + j * stride_c, mask=jmask)
    tl.store(out_ptr + base + rank, vals, mask=jmask)


def run(x: torch.Tensor, seed: int) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty((m, n), device=x.device, dtype=x.dtype)
    keys = torch.empty((m, n), device=x.device, dtype=torch.int32)
    BLOCK = 1024
    _keys_kernel[(triton.cdiv(m * n, BLOCK),)](keys, m * n, seed, BLOCK=BLOCK)
    BLOCK_J, BLOCK_K = 128, 128
    _shuffle_rows_kernel[(m, triton.cdiv(n, BLOCK_J))](x, keys, out, n, x.stride(0), x.stride(1),
                                                        BLOCK_J=BLOCK_J, BLOCK_K=BLOCK_K)
    return out
