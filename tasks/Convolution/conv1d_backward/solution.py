import torch
import triton
import triton.language as tl


@triton.jit
def _conv1d_dgrad_kernel(g_ptr, w_ptr, dx_ptr, NB, C, L, K, pad,
                         sg_n, sg_k, sg_l, sw_k, sw_c, sw_t, sd_n, sd_c, sd_l,
                         KS: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr,
                         BLOCK_K: tl.constexpr):
    # dx as an implicit GEMM: rows are positions (n, l), columns input channels, reduction
    # over taps t and output channels k of grad_out[n, k, l + pad - t] * w[k, c, t].
    pid_p = tl.program_id(0)
    pid_c = tl.program_id(1)
    offs_p = pid_p * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_c = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    offs_k = tl.arange(0, BLOCK_K)
    mask_p = offs_p < NB * L
    mask_c = offs_c < C
    n = offs_p // L
    l = offs_p % L
    g_base = g_ptr + n.to(tl.int64) * sg_n
    acc = tl.zeros((BLOCK_P, BLOCK_C), dtype=tl.float32)
    for t in tl.static_range(KS):
        lo = l + pad - t
        inside = mask_p & (lo >= 0) & (lo < L)
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + offs_k
            mask_k = ks < K
            gt = tl.load(g_base[:, None] + ks[None, :] * sg_k + lo[:, None] * sg_l,
                         mask=inside[:, None] & mask_k[None, :], other=0.0)
            wt = tl.load(w_ptr + ks[:, None] * sw_k + offs_c[None, :] * sw_c + t * sw_t,
                         mask=mask_k[:, None] & mask_c[None, :], other=0.0)
            acc = tl.dot(gt, wt, acc, input_precision="ieee")
    d_rows = dx_ptr + n.to(tl.int64) * sd_n + l * sd_l
    tl.store(d_rows[:, None] + offs_c[None, :] * sd_c, acc.to(dx_ptr.dtype.element_ty),
             mask=mask_p[:, None] & mask_c[None, :])


@triton.jit
def _conv1d_wgrad_partial_kernel(x_ptr, g_ptr, wws_ptr, bws_ptr, NB, C, L, K, pad, P_PER_SPLIT,
                                 sx_n, sx_c, sx_l, sg_n, sg_k, sg_l,
                                 KS: tl.constexpr, BLOCK_K: tl.constexpr,
                                 BLOCK_C: tl.constexpr, BLOCK_P: tl.constexpr):
    # Program (k/c tile, tap t, split): float32 sum over the positions of its split of
    # grad_out[n, k, l] * x[n, c, l - pad + t] into wws[split, k, c, t]; the programs of
    # c tile 0 and tap 0 also sum grad_out itself into bws[split, k] (the bias gradient).
    pid_kc = tl.program_id(0)
    t = tl.program_id(1)
    split = tl.program_id(2)
    c_tiles = tl.cdiv(C, BLOCK_C)
    pid_k = pid_kc // c_tiles
    pid_c = pid_kc % c_tiles
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    offs_c = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    mask_k = offs_k < K
    mask_c = offs_c < C
    P = NB * L
    p_start = split * P_PER_SPLIT
    p_end = tl.minimum(p_start + P_PER_SPLIT, P)
    acc = tl.zeros((BLOCK_K, BLOCK_C), dtype=tl.float32)
    gsum = tl.zeros((BLOCK_K, BLOCK_P), dtype=tl.float32)
    for p0 in range(p_start, p_end, BLOCK_P):
        ps = p0 + tl.arange(0, BLOCK_P)
        mask_p = ps < p_end
        n = (ps // L).to(tl.int64)
        l = ps % L
        gt = tl.load(g_ptr + n[None, :] * sg_n + offs_k[:, None] * sg_k + l[None, :] * sg_l,
                     mask=mask_k[:, None] & mask_p[None, :], other=0.0)
        li = l - pad + t
        inside = mask_p & (li >= 0) & (li < L)
        xt = tl.load(x_ptr + n[:, None] * sx_n + offs_c[None, :] * sx_c + li[:, None] * sx_l,
                     mask=inside[:, None] & mask_c[None, :], other=0.0)
        acc = tl.dot(gt, xt, acc, input_precision="ieee")
        gsum += gt.to(tl.float32)
    wws = (wws_ptr + split.to(tl.int64) * (K * C * KS) + offs_k[:, None] * (C * KS)
           + offs_c[None, :] * KS + t)
    tl.store(wws, acc, mask=mask_k[:, None] & mask_c[None, :])
    if (pid_c == 0) & (t == 0):
        tl.store(bws_ptr + split.to(tl.int64) * K + offs_k, tl.sum(gsum, axis=1), mask=mask_k)


@triton.jit
def _sum_splits_kernel(ws_ptr, out_ptr, NUMEL, SPLITS, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NUMEL
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(ws_ptr + s * NUMEL + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, w: torch.Tensor, grad_out: torch.Tensor):
    NB, C, L = x.shape
    K, _, KS = w.shape
    pad = KS // 2
    x, w, g = x.contiguous(), w.contiguous(), grad_out.contiguous()
    dev, dt = x.device, x.dtype
    dx = torch.empty((NB, C, L), dtype=dt, device=dev)
    dw = torch.empty((K, C, KS), dtype=dt, device=dev)
    db = torch.empty((K,), dtype=dt, device=dev)
    low_precision = dt != torch.float32
    # dx
    BLOCK_P = 128
    BLOCK_C = min(64, max(16, triton.next_power_of_2(C)))
    BLOCK_K = min(64 if low_precision else 32, max(16, triton.next_power_of_2(K)))
    grid = (triton.cdiv(NB * L, BLOCK_P), triton.cdiv(C, BLOCK_C))
    _conv1d_dgrad_kernel[grid](g, w, dx, NB, C, L, K, pad,
                               g.stride(0), g.stride(1), g.stride(2),
                               w.stride(0), w.stride(1), w.stride(2),
                               dx.stride(0), dx.stride(1), dx.stride(2),
                               KS=KS, BLOCK_P=BLOCK_P, BLOCK_C=BLOCK_C, BLOCK_K=BLOCK_K,
                               num_warps=4, num_stages=3)
    # dw and db: split reduction over the N * L positions, then a fixed-order sum
    BK = min(64, max(16, triton.next_power_of_2(K)))
    BC = min(64, max(16, triton.next_power_of_2(C)))
    BP = 64
    P = NB * L
    tiles = triton.cdiv(K, BK) * triton.cdiv(C, BC) * KS
    splits = max(1, min(triton.cdiv(1024, tiles), triton.cdiv(P, 4 * BP)))
    p_per_split = triton.cdiv(triton.cdiv(P, splits), BP) * BP
    splits = triton.cdiv(P, p_per_split)
    wws = torch.empty((splits, K, C, KS), dtype=torch.float32, device=dev)
    bws = torch.empty((splits, K), dtype=torch.float32, device=dev)
    grid = (triton.cdiv(K, BK) * triton.cdiv(C, BC), KS, splits)
    _conv1d_wgrad_partial_kernel[grid](x, g, wws, bws, NB, C, L, K, pad, p_per_split,
                                       x.stride(0), x.stride(1), x.stride(2),
                                       g.stride(0), g.stride(1), g.stride(2),
                                       KS=KS, BLOCK_K=BK, BLOCK_C=BC, BLOCK_P=BP,
                                       num_warps=4, num_stages=3)
    BLOCK = 1024
    _sum_splits_kernel[(triton.cdiv(K * C * KS, BLOCK),)](wws, dw, K * C * KS, splits,
                                                          BLOCK=BLOCK)
    _sum_splits_kernel[(triton.cdiv(K, BLOCK),)](bws, db, K, splits, BLOCK=BLOCK)
    return dx, dw, db
