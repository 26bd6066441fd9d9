import torch
import triton
import triton.language as tl

# 0. routing: per token, float32 softmax and top-k by repeated argmax over the logits (ties to
#    the smaller index), weights renormalized in registers; the shared expert's sigmoid gate;
# 1. a deterministic counting sort of the T * K (token, slot) pairs by expert (four launches:
#    per-chunk counts, a scan over chunks, a scan over experts, a stable scatter);
# 2. grouped GEMM over the sorted pairs: gate and up of the pair's token, SwiGLU epilogue;
# 3. grouped GEMM for down, the routed weight in the epilogue, written at the pair's position;
# 4. the shared expert through the same two kernels as a single group of T rows (identity
#    order, its gate as the "routed weight");
# 5. y[t] = sum over its K slots in slot order, plus the shared expert's row.


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
def _group_of_tile(off_ptr, E, pid_m, BLOCK_M: tl.constexpr, BLOCK_E: tl.constexpr):
    # the expert owning the pid_m-th row tile (each expert's rows tiled on their own), the
    # first sorted row of that tile and the expert's end row; g == E: a spare program
    e = tl.arange(0, BLOCK_E)
    starts = tl.load(off_ptr + e, mask=e < E, other=0)
    ends = tl.load(off_ptr + e + 1, mask=e < E, other=0)
    tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    cum = tl.cumsum(tiles, axis=0)
    g = tl.sum((cum <= pid_m).to(tl.int32), axis=0)
    first_tile = tl.sum(tl.where(e < g, tiles, 0), axis=0)
    row0 = tl.sum(tl.where(e == g, starts, 0), axis=0) + (pid_m - first_tile) * BLOCK_M
    row_end = tl.sum(tl.where(e == g, ends, 0), axis=0)
    return g, row0, row_end


@triton.jit
def _gate_up_kernel(x_ptr, w13_ptr, order_ptr, off_ptr, h_ptr, E, DM, F, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    BLOCK_E: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    g, row0, row_end = _group_of_tile(off_ptr, E, pid_m, BLOCK_M, BLOCK_E)
    if g < E:
        rows = row0 + tl.arange(0, BLOCK_M)
        mask_m = rows < row_end
        tok = tl.load(order_ptr + rows, mask=mask_m, other=0) // K
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        mask_n = offs_n < F
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = x_ptr + tok[:, None].to(tl.int64) * DM + offs_k[None, :]
        wg_ptrs = w13_ptr + (g.to(tl.int64) * 2 * F + offs_n[None, :]) * DM + offs_k[:, None]
        acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, DM, BLOCK_K):
            k_mask = offs_k < DM - k0
            a = tl.load(a_ptrs, mask=mask_m[:, None] & k_mask[None, :], other=0.0)
            w_mask = k_mask[:, None] & mask_n[None, :]
            wg = tl.load(wg_ptrs, mask=w_mask, other=0.0)
            wu = tl.load(wg_ptrs + F * DM, mask=w_mask, other=0.0)
            acc_g = tl.dot(a, wg, acc_g, input_precision="ieee")
            acc_u = tl.dot(a, wu, acc_u, input_precision="ieee")
            a_ptrs += BLOCK_K
            wg_ptrs += BLOCK_K
        h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
        tl.store(h_ptr + rows[:, None].to(tl.int64) * F + offs_n[None, :],
                 h.to(h_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _down_kernel(h_ptr, w2_ptr, order_ptr, off_ptr, tw_ptr, out_ptr, E, DM, F,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 BLOCK_E: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    g, row0, row_end = _group_of_tile(off_ptr, E, pid_m, BLOCK_M, BLOCK_E)
    if g < E:
        rows = row0 + tl.arange(0, BLOCK_M)
        mask_m = rows < row_end
        pair = tl.load(order_ptr + rows, mask=mask_m, other=0)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        mask_n = offs_n < DM
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = h_ptr + rows[:, None].to(tl.int64) * F + offs_k[None, :]
        w_ptrs = w2_ptr + (g.to(tl.int64) * DM + offs_n[None, :]) * F + offs_k[:, None]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, F, BLOCK_K):
            k_mask = offs_k < F - k0
            a = tl.load(a_ptrs, mask=mask_m[:, None] & k_mask[None, :], other=0.0)
            w = tl.load(w_ptrs, mask=k_mask[:, None] & mask_n[None, :], other=0.0)
            acc = tl.dot(a, w, acc, input_precision="ieee")
            a_ptrs += BLOCK_K
            w_ptrs += BLOCK_K
        tw = tl.load(tw_ptr + pair, mask=mask_m, other=0.0)
        tl.store(out_ptr + pair[:, None].to(tl.int64) * DM + offs_n[None, :],
                 acc * tw[:, None], mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _combine_kernel(pair_ptr, shared_ptr, y_ptr, T, DM, K, BLOCK_T: tl.constexpr,
                    BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = (rows[:, None] < T) & (cols[None, :] < DM)
    acc = tl.zeros((BLOCK_T, BLOCK_D), dtype=tl.float32)
    acc += tl.load(shared_ptr + rows[:, None].to(tl.int64) * DM + cols[None, :], mask=mask,
                   other=0.0)
    for j in range(0, K):
        acc += tl.load(pair_ptr + (rows[:, None].to(tl.int64) * K + j) * DM + cols[None, :],
                       mask=mask, other=0.0)
    tl.store(y_ptr + rows[:, None].to(tl.int64) * DM + cols[None, :],
             acc.to(y_ptr.dtype.element_ty), mask=mask)

@triton.jit
def _route_kernel(logit_ptr, ids_ptr, w_ptr, T, E, K, RENORM: tl.constexpr,
                  BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    es = tl.arange(0, BLOCK_E)
    ks = tl.arange(0, BLOCK_K)
    r_mask = rows < T
    lg = tl.load(logit_ptr + rows[:, None].to(tl.int64) * E + es[None, :],
                 mask=r_mask[:, None] & (es[None, :] < E), other=-float("inf")).to(tl.float32)
    m = tl.where(r_mask, tl.max(lg, axis=1), 0.0)  # rows past T: all -inf, keep them finite
    ex = tl.exp(lg - m[:, None])
    p = ex / tl.where(r_mask, tl.sum(ex, axis=1), 1.0)[:, None]
    ids = tl.zeros((BLOCK_T, BLOCK_K), dtype=tl.int32)
    wts = tl.zeros((BLOCK_T, BLOCK_K), dtype=tl.float32)
    cur = lg
    for j in range(0, K):
        best = tl.max(cur, axis=1)
        # the smallest index holding the row's maximum: ties go to the smaller expert
        idx = tl.min(tl.where(cur == best[:, None], es[None, :], BLOCK_E), axis=1)
        hit = es[None, :] == idx[:, None]
        ids = tl.where(ks[None, :] == j, idx[:, None], ids)
        wts = tl.where(ks[None, :] == j, tl.sum(tl.where(hit, p, 0.0), axis=1)[:, None], wts)
        cur = tl.where(hit, -float("inf"), cur)
    if RENORM:
        total = tl.sum(wts, axis=1)
        wts = wts / tl.where(r_mask, total, 1.0)[:, None]  # rows past T hold zeros
    out = rows[:, None].to(tl.int64) * K + ks[None, :]
    o_mask = r_mask[:, None] & (ks[None, :] < K)
    tl.store(ids_ptr + out, ids, mask=o_mask)
    tl.store(w_ptr + out, wts, mask=o_mask)


@triton.jit
def _shared_gate_kernel(x_ptr, g_ptr, gate_ptr, order_ptr, off_ptr, T, DM,
                        BLOCK_T: tl.constexpr, BLOCK_K: tl.constexpr):
    # sigmoid(x . shared_gate) per token, plus the identity order and [0, T] offsets that run
    # the shared expert through the grouped kernels as one group
    rows = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    r_mask = rows < T
    acc = tl.zeros((BLOCK_T, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, DM, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        c_mask = cols < DM
        xv = tl.load(x_ptr + rows[:, None].to(tl.int64) * DM + cols[None, :],
                     mask=r_mask[:, None] & c_mask[None, :], other=0.0).to(tl.float32)
        gv = tl.load(g_ptr + cols, mask=c_mask, other=0.0).to(tl.float32)
        acc += xv * gv[None, :]
    z = tl.sum(acc, axis=1)
    tl.store(gate_ptr + rows, 1.0 / (1.0 + tl.exp(-z)), mask=r_mask)
    tl.store(order_ptr + rows, rows, mask=r_mask)
    if tl.program_id(0) == 0:
        tl.store(off_ptr, 0)
        tl.store(off_ptr + 1, T)


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


def _experts(x, w13, w2, order, offsets, weights, K, out):
    T, DM = x.shape
    E, F2, _ = w13.shape
    F = F2 // 2
    n = order.shape[0]
    BM, BN, BK = 64, 64, 32
    BLOCK_E = triton.next_power_of_2(E)
    tiles = triton.cdiv(n, BM) + E  # worst case: each expert adds one partial tile
    h = torch.empty((n, F), dtype=x.dtype, device=x.device)
    _gate_up_kernel[(tiles, triton.cdiv(F, BN))](x, w13, order, offsets, h, E, DM, F, K,
                                                 BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                                                 BLOCK_E=BLOCK_E, num_warps=4, num_stages=3)
    _down_kernel[(tiles, triton.cdiv(DM, BN))](h, w2, order, offsets, weights, out, E, DM, F,
                                              BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                                              BLOCK_E=BLOCK_E, num_warps=4, num_stages=3)


def run(x, router_logits, w13, w2, shared_w13, shared_w2, shared_gate, top_k, renormalize):
    T, DM = x.shape
    E = w13.shape[0]
    K = top_k
    dev = x.device
    ids = torch.empty((T * K,), dtype=torch.int32, device=dev)
    weights = torch.empty((T * K,), dtype=torch.float32, device=dev)
    _route_kernel[(triton.cdiv(T, 16),)](router_logits, ids, weights, T, E, K,
                                         RENORM=bool(renormalize), BLOCK_T=16,
                                         BLOCK_E=triton.next_power_of_2(E),
                                         BLOCK_K=triton.next_power_of_2(K))
    gate = torch.empty((T,), dtype=torch.float32, device=dev)
    ident = torch.empty((T,), dtype=torch.int32, device=dev)
    one_group = torch.empty((2,), dtype=torch.int32, device=dev)
    _shared_gate_kernel[(triton.cdiv(T, 16),)](x, shared_gate, gate, ident, one_group, T, DM,
                                               BLOCK_T=16, BLOCK_K=128)
    order, offsets = _sort_pairs(ids, E)
    pair_out = torch.empty((T * K, DM), dtype=torch.float32, device=dev)
    _experts(x, w13, w2, order, offsets, weights, K, pair_out)
    shared_out = torch.empty((T, DM), dtype=torch.float32, device=dev)
    _experts(x, shared_w13.view(1, *shared_w13.shape), shared_w2.view(1, *shared_w2.shape),
             ident, one_group, gate, 1, shared_out)
    y = torch.empty((T, DM), dtype=x.dtype, device=dev)
    _combine_kernel[(triton.cdiv(T, 16), triton.cdiv(DM, 128))](pair_out, shared_out, y, T, DM,
                                                                K, BLOCK_T=16, BLOCK_D=128)
    return y
