import torch
import triton
import triton.language as tl


@triton.jit
def _topk_softmax_kernel(g_ptr, w_ptr, id_ptr, T, E, K, RENORM: tl.constexpr,
                         BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    # BLOCK_T tokens per program, all E logits of each in registers.
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    es = tl.arange(0, BLOCK_E)
    tmask = toks < T
    valid = tmask[:, None] & (es < E)[None, :]
    t64 = toks.to(tl.int64)
    x = tl.load(g_ptr + t64[:, None] * E + es[None, :], mask=valid,
                other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    p = tl.exp(x - m[:, None])
    p = tl.where(valid, p, 0.0)
    denom = tl.sum(p, axis=1)
    # k rounds: the largest remaining logit, the lowest expert index among equals
    avail = valid
    kk = tl.arange(0, BLOCK_K)
    ids = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.int32)
    w = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.float32)
    for j in range(0, K):
        key = tl.where(avail, x, -float("inf"))
        best = tl.max(key, axis=1)
        hit = avail & (key == best[:, None])
        pick = tl.min(tl.where(hit, es[None, :], BLOCK_E), axis=1)
        chosen = es[None, :] == pick[:, None]
        pj = tl.sum(tl.where(chosen, p, 0.0), axis=1)
        avail = avail & (chosen == 0)
        ids = tl.where(kk[None, :] == j, pick[:, None], ids)
        w = tl.where(kk[None, :] == j, pj[:, None], w)
    if RENORM:
        w = w / tl.sum(w, axis=1)[:, None]
    else:
        w = w / denom[:, None]
    omask = tmask[:, None] & (kk < K)[None, :]
    offs = t64[:, None] * K + kk[None, :]
    tl.store(w_ptr + offs, w, mask=omask)
    tl.store(id_ptr + offs, ids, mask=omask)


def run(gating: torch.Tensor, k: int, renormalize: bool):
    T, E = gating.shape
    gating = gating.contiguous()
    weights = torch.empty((T, k), dtype=torch.float32, device=gating.device)
    ids = torch.empty((T, k), dtype=torch.int32, device=gating.device)
    BLOCK_E = triton.next_power_of_2(E)
    BLOCK_T = max(1, 2048 // BLOCK_E)
    BLOCK_K = triton.next_power_of_2(k)
    _topk_softmax_kernel[(triton.cdiv(T, BLOCK_T),)](
        gating, weights, ids, T, E, k, RENORM=bool(renormalize), BLOCK_T=BLOCK_T,
        BLOCK_E=BLOCK_E, BLOCK_K=BLOCK_K, num_warps=4)
    return weights, ids
