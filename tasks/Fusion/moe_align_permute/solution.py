import torch
import triton
import triton.language as tl

# 1. a deterministic counting sort of the T * K pairs by expert (four launches: per-chunk
#    counts, a scan over chunks, a scan over experts, a stable scatter) -> order, offsets;
# 2. one launch over row tiles of the padded layout: each program rebuilds the padded starts
#    from the offsets (E values), finds the expert of each row, and writes sorted_ids, the
#    gathered rows of x (zeros for padding), expert_ids of its blocks and the padded total.


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


@triton.jit
def _emit_kernel(x_ptr, order_ptr, off_ptr, ids_ptr, eids_ptr, total_ptr, px_ptr, n, K, E, BLK,
                 P, DM, BLOCK_R: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    es = tl.arange(0, BLOCK_E)
    emask = es < E
    starts = tl.load(off_ptr + es, mask=emask, other=0)
    counts = tl.load(off_ptr + es + 1, mask=emask, other=0) - starts
    padded = (counts + BLK - 1) // BLK * BLK
    pend = tl.cumsum(padded, axis=0)
    pstart = pend - padded
    total = tl.sum(padded, axis=0)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    r_mask = rows < P
    # the expert of a row: how many padded groups end at or before it (E: past the total)
    e_row = tl.sum(((pend[None, :] <= rows[:, None]) & emask[None, :]).to(tl.int32), axis=1)
    hit = es[None, :] == e_row[:, None]
    local = rows - tl.sum(tl.where(hit, pstart[None, :], 0), axis=1)
    real = (e_row < E) & (local < tl.sum(tl.where(hit, counts[None, :], 0), axis=1)) & r_mask
    src = tl.sum(tl.where(hit, starts[None, :], 0), axis=1) + local
    pair = tl.load(order_ptr + src, mask=real, other=0)
    tl.store(ids_ptr + rows, tl.where(real, pair, n), mask=r_mask)
    tok = (pair // K).to(tl.int64)
    for d0 in range(0, DM, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        c_mask = cols < DM
        v = tl.load(x_ptr + tok[:, None] * DM + cols[None, :], mask=real[:, None] & c_mask[None, :],
                    other=0.0)
        tl.store(px_ptr + rows[:, None].to(tl.int64) * DM + cols[None, :], v,
                 mask=r_mask[:, None] & c_mask[None, :])
    # the expert of every block whose first row lies in this tile
    first = rows % BLK == 0
    tl.store(eids_ptr + rows // BLK, tl.where(e_row < E, e_row, -1), mask=first & r_mask)
    if pid == 0:
        tl.store(total_ptr, total)


def _sort_pairs(ids, E):
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
    _chunk_counts_kernel[(nc,)](ids, counts, n, E, CHUNK=CHUNK, SUB=SUB, BLOCK_E=BLOCK_E)
    BLOCK_E2 = min(BLOCK_E, 32)
    _scan_chunks_kernel[(triton.cdiv(E, BLOCK_E2),)](counts, base, totals, nc, E, BLOCK_C=64,
                                                      BLOCK_E2=BLOCK_E2)
    _scan_experts_kernel[(1,)](totals, offsets, E, BLOCK=1024)
    _scatter_kernel[(nc,)](ids, base, offsets, order, n, E, CHUNK=CHUNK, SUB=SUB,
                           BLOCK_E=BLOCK_E)
    return order, offsets


def run(x, topk_ids, num_experts, block_size):
    T, DM = x.shape
    K = topk_ids.shape[1]
    n = T * K
    E, BLK = num_experts, block_size
    P = n + E * (BLK - 1)
    dev = x.device
    order, offsets = _sort_pairs(topk_ids.reshape(-1), E)
    sorted_ids = torch.empty((P,), dtype=torch.int32, device=dev)
    expert_ids = torch.empty((triton.cdiv(P, BLK),), dtype=torch.int32, device=dev)
    total = torch.empty((1,), dtype=torch.int32, device=dev)
    permuted = torch.empty((P, DM), dtype=x.dtype, device=dev)
    BLOCK_R = 64
    _emit_kernel[(triton.cdiv(P, BLOCK_R),)](x, order, offsets, sorted_ids, expert_ids, total,
                                             permuted, n, K, E, BLK, P, DM, BLOCK_R=BLOCK_R,
                                             BLOCK_E=triton.next_power_of_2(E),
                                             BLOCK_D=min(256, triton.next_power_of_2(DM)))
    return sorted_ids, expert_ids, total, permuted
