import torch
import triton
import triton.language as tl


@triton.jit
def _causal_conv1d_silu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, D, L,
                               sx_b, sx_d, sw_d, sy_b, sy_d,
                               KW: tl.constexpr, BLOCK_D: tl.constexpr,
                               BLOCK_L: tl.constexpr):
    # Program (sequence tile, channel block, batch): for each tap k the input tile shifted by
    # k - (KW - 1) is loaded (masked at t < 0) and scaled by the per-channel weight.
    pid_l = tl.program_id(0)
    pid_d = tl.program_id(1)
    b = tl.program_id(2).to(tl.int64)
    ds = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    ts = pid_l * BLOCK_L + tl.arange(0, BLOCK_L)
    mask_d = ds < D
    mask_t = ts < L
    x_rows = x_ptr + b * sx_b + ds[:, None].to(tl.int64) * sx_d
    acc = tl.zeros((BLOCK_D, BLOCK_L), dtype=tl.float32)
    for k in tl.static_range(KW):
        src = ts - (KW - 1) + k
        xv = tl.load(x_rows + src[None, :], mask=mask_d[:, None] & (src >= 0)[None, :]
                     & mask_t[None, :], other=0.0).to(tl.float32)
        wv = tl.load(w_ptr + ds * sw_d + k, mask=mask_d, other=0.0).to(tl.float32)
        acc += xv * wv[:, None]
    acc += tl.load(b_ptr + ds, mask=mask_d, other=0.0).to(tl.float32)[:, None]
    # silu(z) = z * sigmoid(z), with exp of a non-positive argument only
    e = tl.exp(-tl.abs(acc))
    sig = tl.where(acc >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    y = acc * sig
    tl.store(y_ptr + b * sy_b + ds[:, None].to(tl.int64) * sy_d + ts[None, :],
             y.to(y_ptr.dtype.element_ty), mask=mask_d[:, None] & mask_t[None, :])


def run(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    B, D, L = x.shape
    KW = weight.shape[1]
    x, weight, bias = x.contiguous(), weight.contiguous(), bias.contiguous()
    y = torch.empty((B, D, L), dtype=x.dtype, device=x.device)
    BLOCK_L = min(256, triton.next_power_of_2(L))
    BLOCK_D = 8
    grid = (triton.cdiv(L, BLOCK_L), triton.cdiv(D, BLOCK_D), B)
    _causal_conv1d_silu_kernel[grid](x, weight, bias, y, D, L,
                                     x.stride(0), x.stride(1), weight.stride(0),
                                     y.stride(0), y.stride(1),
                                     KW=KW, BLOCK_D=BLOCK_D, BLOCK_L=BLOCK_L, num_warps=4)
    return y
