import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(y):
    f = tl.floor(y)
    d = y - f
    f_is_odd = (f - 2.0 * tl.floor(f * 0.5)) != 0.0
    up = (d > 0.5) | ((d == 0.5) & f_is_odd)
    return tl.where(up, f + 1.0, f)


@triton.jit
def _int4_group_quant_kernel(w_ptr, q_ptr, scale_ptr, zero_ptr, K, G, GROUP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    group = tl.program_id(1)
    cols = group * GROUP + tl.arange(0, GROUP)
    mask = cols < K
    w = tl.load(w_ptr + row * K + cols, mask=mask, other=0.0).to(tl.float32)
    hi = tl.max(tl.where(mask, w, float("-inf")), axis=0)
    lo = tl.min(tl.where(mask, w, float("inf")), axis=0)
    scale = tl.maximum(hi - lo, 1e-5) / 15.0
    zero = tl.minimum(tl.maximum(-_round_half_even(lo / scale), 0.0), 15.0)
    q = tl.minimum(tl.maximum(_round_half_even(w / scale) + zero, 0.0), 15.0)
    tl.store(q_ptr + row * K + cols, q.to(tl.uint8), mask=mask)
    tl.store(scale_ptr + row * G + group, scale)
    tl.store(zero_ptr + row * G + group, zero.to(tl.uint8))


def run(w: torch.Tensor):
    N, K = w.shape
    w = w.contiguous()
    G = triton.cdiv(K, 128)
    q = torch.empty((N, K), dtype=torch.uint8, device=w.device)
    scale = torch.empty((N, G), dtype=torch.float32, device=w.device)
    zero = torch.empty((N, G), dtype=torch.uint8, device=w.device)
    _int4_group_quant_kernel[(N, G)](w, q, scale, zero, K, G, GROUP=128, num_warps=1)
    return q, scale, zero
