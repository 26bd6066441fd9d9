import torch
import triton
import triton.language as tl


@triton.jit
def _route_kernel(g_ptr, w_ptr, id_ptr, psum_ptr, pcnt_ptr, T, E, K, BLOCK_T: tl.constexpr,
                  BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    # BLOCK_T tokens per program: softmax, top-k (ties to the lower index), renormalized
    # weights, and this tile's per-expert sums of probabilities and of assignments
    tile = tl.program_id(0)
    toks = tile * BLOCK_T + tl.arange(0, BLOCK_T)
    es = tl.arange(0, BLOCK_E)
    tmask = toks < T
    valid = tmask[:, None] & (es < E)[None, :]
    t64 = toks.to(tl.int64)
    x = tl.load(g_ptr + t64[:, None] * E + es[None, :], mask=valid,
                other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    m = tl.where(tmask, m, 0.0)
    p = tl.where(valid, tl.exp(x - m[:, None]), 0.0)
    denom = tl.where(tmask, tl.sum(p, axis=1), 1.0)
    p = p / denom[:, None]
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
    wsum = tl.where(tmask, tl.sum(w, axis=1), 1.0)
    w = w / wsum[:, None]
    omask = tmask[:, None] & (kk < K)[None, :]
    offs = t64[:, None] * K + kk[None, :]
    tl.store(w_ptr + offs, w, mask=omask)
    tl.store(id_ptr + offs, ids, mask=omask)
    picked = valid & (avail == 0)  # the experts each real token was sent to
    emask = es < E
    tl.store(psum_ptr + tile * E + es, tl.sum(p, axis=0), mask=emask)
    tl.store(pcnt_ptr + tile * E + es, tl.sum(tl.where(picked, 1.0, 0.0), axis=0), mask=emask)


@triton.jit
def _aux_kernel(psum_ptr, pcnt_ptr, out_ptr, NT, T, E, BLOCK_E: tl.constexpr):
    # one program, tiles summed in order: deterministic
    es = tl.arange(0, BLOCK_E)
    emask = es < E
    ps = tl.zeros([BLOCK_E], dtype=tl.float32)
    cnt = tl.zeros([BLOCK_E], dtype=tl.float32)
    for t in range(0, NT):
        ps += tl.load(psum_ptr + t * E + es, mask=emask, other=0.0)
        cnt += tl.load(pcnt_ptr + t * E + es, mask=emask, other=0.0)
    tl.store(out_ptr, tl.sum((cnt / T) * (ps / T), axis=0) * E)


def run(logits, k):
    T, E = logits.shape
    weights = torch.empty((T, k), dtype=torch.float32, device=logits.device)
    ids = torch.empty((T, k), dtype=torch.int32, device=logits.device)
    aux = torch.empty((), dtype=torch.float32, device=logits.device)
    BLOCK_E = triton.next_power_of_2(E)
    BLOCK_T = max(1, 2048 // BLOCK_E)
    NT = triton.cdiv(T, BLOCK_T)
    psum = torch.empty((NT, E), dtype=torch.float32, device=logits.device)
    pcnt = torch.empty((NT, E), dtype=torch.float32, device=logits.device)
    _route_kernel[(NT,)](logits, weights, ids, psum, pcnt, T, E, k, BLOCK_T=BLOCK_T,
                         BLOCK_E=BLOCK_E, BLOCK_K=triton.next_power_of_2(k), num_warps=4)
    _aux_kernel[(1,)](psum, pcnt, aux, NT, T, E, BLOCK_E=BLOCK_E)
    return weights, ids, aux
