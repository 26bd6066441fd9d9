import torch
import triton
import triton.language as tl


@triton.jit
def _conv2d_dgrad_kernel(g_ptr, w_ptr, dx_ptr, NB, C, H, W, K,
                         sg_n, sg_k, sg_h, sg_w, sw_k, sw_c, sw_r, sw_s,
                         sd_n, sd_c, sd_h, sd_w,
                         BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_K: tl.constexpr):
    # Implicit GEMM: rows are input pixels p = (n, h, w), columns input channels c, the
    # reduction runs over the 9 taps times the K output channels, with grad_out read at
    # (h + 1 - r, w + 1 - s) and w[k, c, r, s] read as a [BLOCK_K, BLOCK_C] tile.
    pid_p = tl.program_id(0)
    pid_c = tl.program_id(1)
    HW = H * W
    offs_p = pid_p * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_c = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    offs_k = tl.arange(0, BLOCK_K)
    mask_p = offs_p < NB * HW
    mask_c = offs_c < C
    n = offs_p // HW
    h = (offs_p % HW) // W
    w_ = offs_p % W
    g_base = g_ptr + n.to(tl.int64) * sg_n
    acc = tl.zeros((BLOCK_P, BLOCK_C), dtype=tl.float32)
    for r in tl.static_range(3):
        for s in tl.static_range(3):
            oh = h + 1 - r
            ow = w_ + 1 - s
            inside = mask_p & (oh >= 0) & (oh < H) & (ow >= 0) & (ow < W)
            g_tap = g_base + oh * sg_h + ow * sg_w
            w_tap = w_ptr + r * sw_r + s * sw_s
            for k0 in range(0, K, BLOCK_K):
                ks = k0 + offs_k
                mask_k = ks < K
                gt = tl.load(g_tap[:, None] + ks[None, :] * sg_k,
                             mask=inside[:, None] & mask_k[None, :], other=0.0)
                wt = tl.load(w_tap + ks[:, None] * sw_k + offs_c[None, :] * sw_c,
                             mask=mask_k[:, None] & mask_c[None, :], other=0.0)
                acc = tl.dot(gt, wt, acc, input_precision="ieee")
    d_rows = dx_ptr + n.to(tl.int64) * sd_n + h * sd_h + w_ * sd_w
    tl.store(d_rows[:, None] + offs_c[None, :] * sd_c, acc.to(dx_ptr.dtype.element_ty),
             mask=mask_p[:, None] & mask_c[None, :])


def run(grad_out: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    NB, K, H, W = grad_out.shape
    C = w.shape[1]
    grad_out, w = grad_out.contiguous(), w.contiguous()
    dx = torch.empty((NB, C, H, W), dtype=grad_out.dtype, device=grad_out.device)
    low_precision = grad_out.dtype != torch.float32
    BLOCK_P = 128
    BLOCK_C = min(64, max(16, triton.next_power_of_2(C)))
    BLOCK_K = min(64 if low_precision else 32, max(16, triton.next_power_of_2(K)))
    grid = (triton.cdiv(NB * H * W, BLOCK_P), triton.cdiv(C, BLOCK_C))
    _conv2d_dgrad_kernel[grid](grad_out, w, dx, NB, C, H, W, K,
                               grad_out.stride(0), grad_out.stride(1), grad_out.stride(2),
                               grad_out.stride(3), w.stride(0), w.stride(1), w.stride(2),
                               w.stride(3), dx.stride(0), dx.stride(1), dx.stride(2),
                               dx.stride(3), BLOCK_P=BLOCK_P, BLOCK_C=BLOCK_C, BLOCK_K=BLOCK_K,
                               num_warps=4, num_stages=3)
    return dx
