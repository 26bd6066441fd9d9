import torch
import triton
import triton.language as tl


@triton.jit
def _conv2d_wgrad_partial_kernel(x_ptr, g_ptr, ws_ptr, NB, C, H, W, K, P_PER_SPLIT,
                                 sx_n, sx_c, sx_h, sx_w, sg_n, sg_k, sg_h, sg_w,
                                 BLOCK_K: tl.constexpr, BLOCK_C: tl.constexpr,
                                 BLOCK_P: tl.constexpr):
    # Program (k/c tile, tap, split): sum over the pixels p = (n, h, w) of split s of
    # grad_out[n, k, h, w] * x[n, c, h + r - 1, w + s - 1], as a [BLOCK_K, BLOCK_P] x
    # [BLOCK_P, BLOCK_C] GEMM per chunk, into ws[split, k, c, tap] (float32, no atomics).
    pid_kc = tl.program_id(0)
    tap = tl.program_id(1)
    split = tl.program_id(2)
    r = tap // 3
    s = tap % 3
    c_tiles = tl.cdiv(C, BLOCK_C)
    offs_k = (pid_kc // c_tiles) * BLOCK_K + tl.arange(0, BLOCK_K)
    offs_c = (pid_kc % c_tiles) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask_k = offs_k < K
    mask_c = offs_c < C
    HW = H * W
    P = NB * HW
    p_start = split * P_PER_SPLIT
    p_end = tl.minimum(p_start + P_PER_SPLIT, P)
    acc = tl.zeros((BLOCK_K, BLOCK_C), dtype=tl.float32)
    for p0 in range(p_start, p_end, BLOCK_P):
        ps = p0 + tl.arange(0, BLOCK_P)
        mask_p = ps < p_end
        n = (ps // HW).to(tl.int64)
        h = (ps % HW) // W
        w_ = ps % W
        gt = tl.load(g_ptr + n[None, :] * sg_n + offs_k[:, None] * sg_k + h[None, :] * sg_h
                     + w_[None, :] * sg_w, mask=mask_k[:, None] & mask_p[None, :], other=0.0)
        ih = h + r - 1
        iw = w_ + s - 1
        inside = mask_p & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        xt = tl.load(x_ptr + n[:, None] * sx_n + offs_c[None, :] * sx_c + ih[:, None] * sx_h
                     + iw[:, None] * sx_w, mask=inside[:, None] & mask_c[None, :], other=0.0)
        acc = tl.dot(gt, xt, acc, input_precision="ieee")
    ws = ws_ptr + split.to(tl.int64) * (K * C * 9) + offs_k[:, None] * (C * 9) + offs_c[None, :] * 9 + tap
    tl.store(ws, acc, mask=mask_k[:, None] & mask_c[None, :])


@triton.jit
def _sum_splits_kernel(ws_ptr, out_ptr, NUMEL, SPLITS, BLOCK: tl.constexpr):
    # out[i] = sum over splits of ws[s, i], in a fixed order, rounded once.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NUMEL
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(ws_ptr + s * NUMEL + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc.to(out_ptr.dtype.element_ty), mask=mask)


def _conv2d_weight_grad(x, grad_out, dw):
    NB, C, H, W = x.shape
    K = grad_out.shape[1]
    BLOCK_K = min(64, max(16, triton.next_power_of_2(K)))
    BLOCK_C = min(64, max(16, triton.next_power_of_2(C)))
    BLOCK_P = 64
    P = NB * H * W
    tiles = triton.cdiv(K, BLOCK_K) * triton.cdiv(C, BLOCK_C) * 9
    # Split the pixel reduction so that ~1000 programs run, each over >= 4 pixel chunks.
    splits = max(1, min(triton.cdiv(1024, tiles), triton.cdiv(P, 4 * BLOCK_P)))
    p_per_split = triton.cdiv(triton.cdiv(P, splits), BLOCK_P) * BLOCK_P
    splits = triton.cdiv(P, p_per_split)
    ws = torch.empty((splits, K, C, 9), dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(K, BLOCK_K) * triton.cdiv(C, BLOCK_C), 9, splits)
    _conv2d_wgrad_partial_kernel[grid](x, grad_out, ws, NB, C, H, W, K, p_per_split,
                                       x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                       grad_out.stride(0), grad_out.stride(1),
                                       grad_out.stride(2), grad_out.stride(3),
                                       BLOCK_K=BLOCK_K, BLOCK_C=BLOCK_C, BLOCK_P=BLOCK_P,
                                       num_warps=4, num_stages=3)
    numel = K * C * 9
    BLOCK = 1024
    _sum_splits_kernel[(triton.cdiv(numel, BLOCK),)](ws, dw, numel, splits, BLOCK=BLOCK)


def run(x: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    K, C = grad_out.shape[1], x.shape[1]
    x, grad_out = x.contiguous(), grad_out.contiguous()
    dw = torch.empty((K, C, 3, 3), dtype=x.dtype, device=x.device)
    _conv2d_weight_grad(x, grad_out, dw)
    return dw
