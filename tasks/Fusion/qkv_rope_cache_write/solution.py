import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


@triton.jit
def _qkv_rope_kernel(x_ptr, w_ptr, pos_ptr, cs_ptr, slot_ptr, q_ptr, kc_ptr, vc_ptr, T, DM,
                     H, HKV, D, BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    # one program per (token tile, head of the H + 2 HKV): the head's two halves are two
    # accumulators, so the rotation pairs (i, D/2 + i) meet in registers in the epilogue
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    half = D // 2
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_h = tl.arange(0, BLOCK_H)
    offs_k = tl.arange(0, BLOCK_K)
    r_mask = rows < T
    h_mask = offs_h < half
    n_lo = head * D + offs_h  # rows of w_qkv of the first and second half
    a_ptrs = x_ptr + rows[:, None].to(tl.int64) * DM + offs_k[None, :]
    w_lo = w_ptr + n_lo[None, :].to(tl.int64) * DM + offs_k[:, None]
    acc_lo = tl.zeros((BLOCK_M, BLOCK_H), dtype=tl.float32)
    acc_hi = tl.zeros((BLOCK_M, BLOCK_H), dtype=tl.float32)
    for k0 in range(0, DM, BLOCK_K):
        k_mask = offs_k < DM - k0
        a = tl.load(a_ptrs, mask=r_mask[:, None] & k_mask[None, :], other=0.0)
        w_mask = k_mask[:, None] & h_mask[None, :]
        wl = tl.load(w_lo, mask=w_mask, other=0.0)
        wh = tl.load(w_lo + half * DM, mask=w_mask, other=0.0)
        acc_lo = tl.dot(a, wl, acc_lo, input_precision="ieee")
        acc_hi = tl.dot(a, wh, acc_hi, input_precision="ieee")
        a_ptrs += BLOCK_K
        w_lo += BLOCK_K
    dt = q_ptr.dtype.element_ty
    # rounded to the dtype first, as vLLM stores the projection
    lo = acc_lo.to(dt).to(tl.float32)
    hi = acc_hi.to(dt).to(tl.float32)
    mask = r_mask[:, None] & h_mask[None, :]
    if head < H + HKV:
        pos = tl.load(pos_ptr + rows, mask=r_mask, other=0)
        cs_row = cs_ptr + pos[:, None] * D + offs_h[None, :]
        c = tl.load(cs_row, mask=mask, other=0.0)
        s = tl.load(cs_row + half, mask=mask, other=0.0)
        lo, hi = lo * c - hi * s, hi * c + lo * s
    if head < H:
        out = q_ptr + (rows[:, None].to(tl.int64) * H + head) * D + offs_h[None, :]
        tl.store(out, lo.to(dt), mask=mask)
        tl.store(out + half, hi.to(dt), mask=mask)
    else:
        slot = tl.load(slot_ptr + rows, mask=r_mask, other=-1)
        w_mask2 = mask & (slot[:, None] >= 0)
        if head < H + HKV:
            out = kc_ptr + (slot[:, None] * HKV + (head - H)) * D + offs_h[None, :]
        else:
            out = vc_ptr + (slot[:, None] * HKV + (head - H - HKV)) * D + offs_h[None, :]
        tl.store(out, lo.to(dt), mask=w_mask2)
        tl.store(out + half, hi.to(dt), mask=w_mask2)


def _copy(cache):
    new = torch.empty_like(cache)
    n = cache.numel()
    _copy_kernel[(triton.cdiv(n, 4096),)](cache, new, n, BLOCK=4096, num_warps=4)
    return new


def run(x, w_qkv, positions, cos_sin_cache, k_cache, v_cache, slot_mapping, num_heads,
        num_kv_heads):
    T, DM = x.shape
    H, HKV = num_heads, num_kv_heads
    D = k_cache.shape[-1]
    q = torch.empty((T, H, D), dtype=x.dtype, device=x.device)
    k_out = _copy(k_cache)
    v_out = _copy(v_cache)
    BLOCK_M = 64
    grid = (triton.cdiv(T, BLOCK_M), H + 2 * HKV)
    _qkv_rope_kernel[grid](x, w_qkv, positions, cos_sin_cache, slot_mapping, q, k_out, v_out,
                           T, DM, H, HKV, D, BLOCK_M=BLOCK_M,
                           BLOCK_H=max(16, triton.next_power_of_2(D // 2)), BLOCK_K=32,
                           num_warps=4, num_stages=3)
    return q, k_out, v_out
