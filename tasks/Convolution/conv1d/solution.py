import torch
import triton
import triton.language as tl


@triton.jit
def _conv1d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, NB, C, L, K, LO, pad,
                   sx_n, sx_c, sx_l, sw_k, sw_c, sw_t, sy_n, sy_k, sy_l,
                   KS: tl.constexpr, HAS_BIAS: tl.constexpr,
                   BLOCK_P: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_C: tl.constexpr):
    # Implicit GEMM: rows are output positions p = (n, l), columns output channels, the
    # reduction runs over the KS taps (unrolled) times the input channels.
    pid_p = tl.program_id(0)
    pid_k = tl.program_id(1)
    offs_p = pid_p * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    offs_c = tl.arange(0, BLOCK_C)
    mask_p = offs_p < NB * LO
    mask_k = offs_k < K
    n = offs_p // LO
    lo = offs_p % LO
    x_base = x_ptr + n.to(tl.int64) * sx_n
    acc = tl.zeros((BLOCK_P, BLOCK_K), dtype=tl.float32)
    for t in tl.static_range(KS):
        li = lo - pad + t
        inside = mask_p & (li >= 0) & (li < L)
        for c0 in range(0, C, BLOCK_C):
            cs = c0 + offs_c
            mask_c = cs < C
            xt = tl.load(x_base[:, None] + cs[None, :] * sx_c + li[:, None] * sx_l,
                         mask=inside[:, None] & mask_c[None, :], other=0.0)
            wt = tl.load(w_ptr + offs_k[None, :] * sw_k + cs[:, None] * sw_c + t * sw_t,
                         mask=mask_c[:, None] & mask_k[None, :], other=0.0)
            acc = tl.dot(xt, wt, acc, input_precision="ieee")
    if HAS_BIAS:
        acc += tl.load(b_ptr + offs_k, mask=mask_k, other=0.0).to(tl.float32)[None, :]
    y_rows = y_ptr + n.to(tl.int64) * sy_n + lo * sy_l
    tl.store(y_rows[:, None] + offs_k[None, :] * sy_k, acc.to(y_ptr.dtype.element_ty),
             mask=mask_p[:, None] & mask_k[None, :])


def run(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    NB, C, L = x.shape
    K, _, KS = w.shape
    x, w, b = x.contiguous(), w.contiguous(), b.contiguous()
    y = torch.empty((NB, K, L), dtype=x.dtype, device=x.device)
    low_precision = x.dtype != torch.float32
    BLOCK_P = 128
    BLOCK_K = min(64, max(16, triton.next_power_of_2(K)))
    BLOCK_C = min(64 if low_precision else 32, max(16, triton.next_power_of_2(C)))
    grid = (triton.cdiv(NB * L, BLOCK_P), triton.cdiv(K, BLOCK_K))
    _conv1d_kernel[grid](x, w, b, y, NB, C, L, K, L, KS // 2,
                         x.stride(0), x.stride(1), x.stride(2), w.stride(0), w.stride(1),
                         w.stride(2), y.stride(0), y.stride(1), y.stride(2),
                         KS=KS, HAS_BIAS=True, BLOCK_P=BLOCK_P, BLOCK_K=BLOCK_K,
                         BLOCK_C=BLOCK_C, num_warps=4, num_stages=3)
    return y
