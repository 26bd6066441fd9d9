import torch
import triton
import triton.language as tl


@triton.jit
def _head_rms(x_ptr, w_ptr, o_ptr, t, h, NH, D, st, sh, sd, eps, BLOCK_D: tl.constexpr):
    offs = tl.arange(0, BLOCK_D)
    mask = offs < D
    src = x_ptr + t.to(tl.int64) * st + h.to(tl.int64) * sh + offs.to(tl.int64) * sd
    x = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    inv_rms = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / D + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dst = o_ptr + (t.to(tl.int64) * NH + h) * D + offs
    tl.store(dst, (x * inv_rms * w).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _qk_rms_norm_kernel(q_ptr, k_ptr, qw_ptr, kw_ptr, qo_ptr, ko_ptr, H, HKV, D,
                        sqt, sqh, sqd, skt, skh, skd, eps, BLOCK_D: tl.constexpr):
    # one program per token and head; heads 0..H-1 are query heads, H..H+HKV-1 key heads
    t = tl.program_id(0)
    h = tl.program_id(1)
    if h < H:
        _head_rms(q_ptr, qw_ptr, qo_ptr, t, h, H, D, sqt, sqh, sqd, eps, BLOCK_D)
    else:
        _head_rms(k_ptr, kw_ptr, ko_ptr, t, h - H, HKV, D, skt, skh, skd, eps, BLOCK_D)


def run(q, k, q_weight, k_weight):
    T, H, D = q.shape
    HKV = k.shape[1]
    q_out = torch.empty((T, H, D), dtype=q.dtype, device=q.device)
    k_out = torch.empty((T, HKV, D), dtype=k.dtype, device=k.device)
    BLOCK_D = triton.next_power_of_2(D)
    _qk_rms_norm_kernel[(T, H + HKV)](q, k, q_weight, k_weight, q_out, k_out, H, HKV, D,
                                      q.stride(0), q.stride(1), q.stride(2),
                                      k.stride(0), k.stride(1), k.stride(2), 1e-6,
                                      BLOCK_D=BLOCK_D, num_warps=1)
    return q_out, k_out
