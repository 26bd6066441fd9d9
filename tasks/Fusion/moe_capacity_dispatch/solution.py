import torch
import triton
import triton.language as tl


@triton.jit
def _gate_kernel(g_ptr, id_ptr, p_ptr, T, E, BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr):
    # top-1 expert (the largest logit, ties to the lower index) and its softmax probability
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    es = tl.arange(0, BLOCK_E)
    tmask = toks < T
    valid = tmask[:, None] & (es < E)[None, :]
    x = tl.load(g_ptr + toks.to(tl.int64)[:, None] * E + es[None, :], mask=valid,
                other=-float("inf")).to(tl.float32)
    m = tl.where(tmask, tl.max(x, axis=1), 0.0)
    pick = tl.min(tl.where(valid & (x == m[:, None]), es[None, :], BLOCK_E), axis=1)
    denom = tl.sum(tl.where(valid, tl.exp(x - m[:, None]), 0.0), axis=1)
    tl.store(id_ptr + toks, pick, mask=tmask)
    tl.store(p_ptr + toks, 1.0 / tl.where(tmask, denom, 1.0), mask=tmask)


@triton.jit
def _expert_dispatch_kernel(x_ptr, id_ptr, p_ptr, out_ptr, comb_ptr, slot_ptr, T, DM, C,
                            BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    # one program per expert: its tokens in index order, a running count gives each its slot;
    # tokens past the capacity are dropped (slot -1, weight 0); unused slots are zeroed
    e = tl.program_id(0)
    offs_t = tl.arange(0, BLOCK_T)
    offs_d = tl.arange(0, BLOCK_D)
    count = e * 0  # an int32 scalar tensor: loop-carried, so not a constexpr 0
    for t0 in range(0, T, BLOCK_T):
        toks = t0 + offs_t
        tmask = toks < T
        mine = (tl.load(id_ptr + toks, mask=tmask, other=-1) == e) & tmask
        pos = count + tl.cumsum(mine.to(tl.int32), axis=0) - 1
        kept = mine & (pos < C)
        slot = e * C + pos
        tl.store(slot_ptr + toks, tl.where(kept, slot, -1), mask=mine)
        p = tl.load(p_ptr + toks, mask=mine, other=0.0)
        tl.store(comb_ptr + toks, tl.where(kept, p, 0.0), mask=mine)
        src = toks.to(tl.int64)[:, None] * DM
        dst = slot.to(tl.int64)[:, None] * DM
        for d0 in range(0, DM, BLOCK_D):
            cols = d0 + offs_d
            m2 = kept[:, None] & (cols < DM)[None, :]
            row = tl.load(x_ptr + src + cols[None, :], mask=m2, other=0.0)
            tl.store(out_ptr + dst + cols[None, :], row, mask=m2)
        count += tl.sum(mine.to(tl.int32), axis=0)
    used = tl.minimum(count, C)
    for c0 in range(0, C, BLOCK_T):
        slots = c0 + offs_t
        empty = (slots >= used) & (slots < C)
        dst = (e * C + slots).to(tl.int64)[:, None] * DM
        for d0 in range(0, DM, BLOCK_D):
            cols = d0 + offs_d
            zeros = tl.zeros([BLOCK_T, BLOCK_D], dtype=out_ptr.dtype.element_ty)
            tl.store(out_ptr + dst + cols[None, :], zeros,
                     mask=empty[:, None] & (cols < DM)[None, :])


def run(x, logits, capacity):
    T, E = logits.shape
    DM = x.shape[1]
    ids = torch.empty((T,), dtype=torch.int32, device=x.device)
    top_p = torch.empty((T,), dtype=torch.float32, device=x.device)
    out = torch.empty((E, capacity, DM), dtype=x.dtype, device=x.device)
    combine = torch.empty((T,), dtype=torch.float32, device=x.device)
    slot = torch.empty((T,), dtype=torch.int32, device=x.device)
    BLOCK_E = triton.next_power_of_2(E)
    BT = max(1, 2048 // BLOCK_E)
    _gate_kernel[(triton.cdiv(T, BT),)](logits, ids, top_p, T, E, BLOCK_T=BT, BLOCK_E=BLOCK_E)
    _expert_dispatch_kernel[(E,)](x, ids, top_p, out, combine, slot, T, DM, capacity,
                                  BLOCK_T=64, BLOCK_D=min(256, triton.next_power_of_2(DM)),
                                  num_warps=4)
    return out, combine, slot
