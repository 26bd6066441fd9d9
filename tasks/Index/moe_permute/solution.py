import torch
import triton
import triton.language as tl

# Deterministic counting sort in four launches over chunks of CHUNK pairs, each chunk walked in
# sub-blocks of SUB pairs:
#   1. per chunk, the count of each expert                           -> counts[nc, E]
#   2. per expert, an exclusive scan of its counts over the chunks   -> base[nc, E], totals[E]
#   3. an exclusive scan of the totals over the experts              -> expert_offsets
#   4. per chunk, each pair's rank among the earlier pairs of its expert in the chunk (a running
#      per-expert count plus a one-hot prefix sum inside the sub-block); its destination is
#      offsets[e] + base[chunk, e] + rank.


@triton.jit
def _chunk_counts_kernel(ids_ptr, counts_ptr, n, E, CHUNK: tl.constexpr, SUB: tl.constexpr,
                         BLOCK_E: tl.constexpr):
    pid = tl.program_id(0)
    es = tl.arange(0, BLOCK_E)
    acc = tl.zeros([BLOCK_E], dtype=tl.int32)
    for s in range(0, CHUNK, SUB):
        offs = pid.to(tl.int64) * CHUNK + s + tl.arange(0, SUB)
        e = tl.load(ids_ptr + offs, mask=offs < n, other=-1)
        acc += tl.sum((e[:, None] == es[None, :]).to(tl.int32), axis=0)
    tl.store(counts_ptr + pid.to(tl.int64) * E + es, acc, mask=es < E)


@triton.jit
def _scan_chunks_kernel(counts_ptr, base_ptr, totals_ptr, nc, E,
                        BLOCK_C: tl.constexpr, BLOCK_E2: tl.constexpr):
    es = tl.program_id(0) * BLOCK_E2 + tl.arange(0, BLOCK_E2)
    emask = es < E
    carry = tl.zeros([BLOCK_E2], dtype=tl.int32)
    for c0 in range(0, nc, BLOCK_C):
        cs = c0 + tl.arange(0, BLOCK_C)
        mask = (cs < nc)[:, None] & emask[None, :]
        offs = cs.to(tl.int64)[:, None] * E + es[None, :]
        c = tl.load(counts_ptr + offs, mask=mask, other=0)
        incl = tl.cumsum(c, axis=0)
        tl.store(base_ptr + offs, incl - c + carry[None, :], mask=mask)
        carry += tl.sum(c, axis=0)
    tl.store(totals_ptr + es, carry, mask=emask)


@triton.jit
def _scan_experts_kernel(totals_ptr, offsets_ptr, E, BLOCK: tl.constexpr):
    carry = tl.zeros([], dtype=tl.int32)
    for e0 in range(0, E, BLOCK):
        es = e0 + tl.arange(0, BLOCK)
        t = tl.load(totals_ptr + es, mask=es < E, other=0)
        incl = tl.cumsum(t, axis=0)
        tl.store(offsets_ptr + es, incl - t + carry, mask=es < E)
        carry += tl.sum(t, axis=0)
    tl.store(offsets_ptr + E, carry)


@triton.jit
def _scatter_kernel(ids_ptr, base_ptr, offsets_ptr, order_ptr, n, E, CHUNK: tl.constexpr,
                    SUB: tl.constexpr, BLOCK_E: tl.constexpr):
    pid = tl.program_id(0)
    es = tl.arange(0, BLOCK_E)
    emask = es < E
    # where each expert's pairs of this chunk start in the output
    start = tl.load(offsets_ptr + es, mask=emask, other=0)
    start += tl.load(base_ptr + pid.to(tl.int64) * E + es, mask=emask, other=0)
    for s in range(0, CHUNK, SUB):
        offs = pid.to(tl.int64) * CHUNK + s + tl.arange(0, SUB)
        mask = offs < n
        e = tl.load(ids_ptr + offs, mask=mask, other=-1)
        onehot = (e[:, None] == es[None, :]).to(tl.int32)
        before = tl.cumsum(onehot, axis=0) - onehot + start[None, :]
        dest = tl.sum(before * onehot, axis=1)
        tl.store(order_ptr + dest, offs.to(tl.int32), mask=mask)
        start += tl.sum(onehot, axis=0)


def run(topk_ids: torch.Tensor, E: int):
    ids = topk_ids.reshape(-1).contiguous()
    n = ids.shape[0]
    dev = ids.device
    BLOCK_E = triton.next_power_of_2(E)
    SUB = max(16, min(128, 8192 // BLOCK_E))
    CHUNK = max(SUB, min(4096, triton.next_power_of_2(n)))
    nc = triton.cdiv(n, CHUNK)
    counts = torch.empty((nc, E), dtype=torch.int32, device=dev)
    base = torch.empty((nc, E), dtype=torch.int32, device=dev)
    totals = torch.empty((E,), dtype=torch.int32, device=dev)
    order = torch.empty((n,), dtype=torch.int32, device=dev)
    offsets = torch.empty((E + 1,), dtype=torch.int32, device=dev)
    _chunk_counts_kernel[(nc,)](ids, counts, n, E, CHUNK=CHUNK, SUB=SUB, BLOCK_E=BLOCK_E,
                                num_warps=4)
    BLOCK_E2 = min(BLOCK_E, 32)
    _scan_chunks_kernel[(triton.cdiv(E, BLOCK_E2),)](counts, base, totals, nc, E, BLOCK_C=64,
                                                      BLOCK_E2=BLOCK_E2, num_warps=4)
    _scan_experts_kernel[(1,)](totals, offsets, E, BLOCK=1024, num_warps=4)
    _scatter_kernel[(nc,)](ids, base, offsets, order, n, E, CHUNK=CHUNK, SUB=SUB,
                           BLOCK_E=BLOCK_E, num_warps=4)
    return order, offsets
