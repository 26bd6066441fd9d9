import torch
import triton
import triton.language as tl


@triton.jit
def _group_topk_kernel(g_ptr, w_ptr, id_ptr, T, E, GS, NG, TG, K, scaling, RENORM: tl.constexpr,
                       BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_G: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    es = tl.arange(0, BLOCK_E)
    gs = tl.arange(0, BLOCK_G)
    tmask = toks < T
    valid = tmask[:, None] & (es < E)[None, :]
    t64 = toks.to(tl.int64)
    x = tl.load(g_ptr + t64[:, None] * E + es[None, :], mask=valid,
                other=-float("inf")).to(tl.float32)
    m = tl.where(tmask, tl.max(x, axis=1), 0.0)
    p = tl.where(valid, tl.exp(x - m[:, None]), 0.0)
    denom = tl.where(tmask, tl.sum(p, axis=1), 1.0)
    p = p / denom[:, None]
    group_of = es // GS
    # each group's best logit
    gmax = tl.full([BLOCK_T, BLOCK_G], -float("inf"), dtype=tl.float32)
    for g in range(0, NG):
        best = tl.max(tl.where(valid & (group_of == g)[None, :], x, -float("inf")), axis=1)
        gmax = tl.where(gs[None, :] == g, best[:, None], gmax)
    # the TG best groups, ties to the lower group index
    gavail = (gs < NG)[None, :] & tmask[:, None]
    for _ in range(0, TG):
        key = tl.where(gavail, gmax, -float("inf"))
        best = tl.max(key, axis=1)
        pick = tl.min(tl.where(gavail & (key == best[:, None]), gs[None, :], BLOCK_G), axis=1)
        gavail = gavail & (gs[None, :] != pick[:, None])
    chosen_g = (gs < NG)[None, :] & (gavail == 0) & tmask[:, None]
    allowed = valid & (es < 0)[None, :]  # all False, of valid's shape
    for g in range(0, NG):
        sel = tl.max(tl.where(chosen_g & (gs[None, :] == g), 1, 0), axis=1) > 0
        allowed = allowed | (valid & (group_of == g)[None, :] & sel[:, None])
    # top-k experts inside the chosen groups, ties to the lower expert index
    avail = allowed
    kk = tl.arange(0, BLOCK_K)
    ids = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.int32)
    w = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.float32)
    for j in range(0, K):
        key = tl.where(avail, x, -float("inf"))
        best = tl.max(key, axis=1)
        pick = tl.min(tl.where(avail & (key == best[:, None]), es[None, :], BLOCK_E), axis=1)
        hit = es[None, :] == pick[:, None]
        pj = tl.sum(tl.where(hit, p, 0.0), axis=1)
        avail = avail & (hit == 0)
        ids = tl.where(kk[None, :] == j, pick[:, None], ids)
        w = tl.where(kk[None, :] == j, pj[:, None], w)
    if RENORM:
        w = w / tl.where(tmask, tl.sum(w, axis=1), 1.0)[:, None]
    omask = tmask[:, None] & (kk < K)[None, :]
    offs = t64[:, None] * K + kk[None, :]
    tl.store(w_ptr + offs, w * scaling, mask=omask)
    tl.store(id_ptr + offs, ids, mask=omask)


def run(logits, n_group, topk_group, k, renormalize, scaling):
    T, E = logits.shape
    weights = torch.empty((T, k), dtype=torch.float32, device=logits.device)
    ids = torch.empty((T, k), dtype=torch.int32, device=logits.device)
    BLOCK_E = triton.next_power_of_2(E)
    BLOCK_T = max(1, 2048 // BLOCK_E)
    _group_topk_kernel[(triton.cdiv(T, BLOCK_T),)](
        logits, weights, ids, T, E, E // n_group, n_group, topk_group, k, scaling,
        RENORM=bool(renormalize), BLOCK_T=BLOCK_T, BLOCK_E=BLOCK_E,
        BLOCK_G=max(2, triton.next_power_of_2(n_group)), BLOCK_K=triton.next_power_of_2(k),
        num_warps=4)
    return weights, ids
