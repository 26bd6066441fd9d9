import torch
import triton
import triton.language as tl


@triton.jit
def _copy_caches_kernel(kc_ptr, vc_ptr, new_kc_ptr, new_vc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(new_kc_ptr + offs, tl.load(kc_ptr + offs, mask=mask), mask=mask)
    tl.store(new_vc_ptr + offs, tl.load(vc_ptr + offs, mask=mask), mask=mask)


@triton.jit
def _write_slots_kernel(k_ptr, v_ptr, slot_ptr, new_kc_ptr, new_vc_ptr, H, D,
                        sk_t, sk_h, sk_d, sv_t, sv_h, sv_d,
                        BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    # One token per program (axis 0); its [H, D] rows go to one cache slot.
    t = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + t)
    if slot >= 0:
        hs = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
        ds = tl.arange(0, BLOCK_D)
        mask = (hs < H)[:, None] & (ds < D)[None, :]
        h64 = hs.to(tl.int64)[:, None]
        d64 = ds.to(tl.int64)[None, :]
        k = tl.load(k_ptr + t * sk_t + h64 * sk_h + d64 * sk_d, mask=mask)
        v = tl.load(v_ptr + t * sv_t + h64 * sv_h + d64 * sv_d, mask=mask)
        dst = slot * H * D + h64 * D + d64
        tl.store(new_kc_ptr + dst, k, mask=mask)
        tl.store(new_vc_ptr + dst, v, mask=mask)


def run(key, value, key_cache, value_cache, slot_mapping):
    T, H, D = key.shape
    key_cache = key_cache.contiguous()
    value_cache = value_cache.contiguous()
    slot_mapping = slot_mapping.contiguous()
    new_kc = torch.empty_like(key_cache)
    new_vc = torch.empty_like(value_cache)
    n = key_cache.numel()
    BLOCK = 4096
    _copy_caches_kernel[(triton.cdiv(n, BLOCK),)](key_cache, value_cache, new_kc, new_vc, n,
                                                  BLOCK=BLOCK, num_warps=8)
    BLOCK_D = triton.next_power_of_2(D)
    BLOCK_H = max(1, min(triton.next_power_of_2(H), 2048 // BLOCK_D))
    _write_slots_kernel[(T, triton.cdiv(H, BLOCK_H))](
        key, value, slot_mapping, new_kc, new_vc, H, D,
        key.stride(0), key.stride(1), key.stride(2),
        value.stride(0), value.stride(1), value.stride(2),
        BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D, num_warps=4)
    return new_kc, new_vc
