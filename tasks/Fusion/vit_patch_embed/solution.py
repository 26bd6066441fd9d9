import torch
import triton
import triton.language as tl


@triton.jit
def _patch_embed_kernel(x_ptr, w_ptr, b_ptr, pos_ptr, y_ptr, C, H, W, P, GW, NP, M, E, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # a GEMM [B*NP, K] x [K, E] whose A rows are patches read straight from the image
    # (k = (c, i, j)), then + bias + pos[patch]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    b = offs_m // NP
    patch = offs_m % NP
    mask_m = offs_m < M
    row0 = (patch // GW) * P
    col0 = (patch % GW) * P
    img = b.to(tl.int64) * C * H * W
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        k_mask = k < K
        c = k // (P * P)
        ij = k % (P * P)
        a_off = (img[:, None] + c[None, :] * H * W + (row0[:, None] + ij[None, :] // P) * W
                 + col0[:, None] + ij[None, :] % P)
        a = tl.load(x_ptr + a_off, mask=mask_m[:, None] & k_mask[None, :], other=0.0)
        w = tl.load(w_ptr + offs_n[None, :].to(tl.int64) * K + k[:, None],
                    mask=k_mask[:, None] & (offs_n[None, :] < E), other=0.0)
        acc = tl.dot(a, w, acc, input_precision="ieee")
    mask = mask_m[:, None] & (offs_n[None, :] < E)
    acc += tl.load(b_ptr + offs_n, mask=offs_n < E, other=0.0).to(tl.float32)[None, :]
    acc += tl.load(pos_ptr + patch[:, None] * E + offs_n[None, :], mask=mask,
                   other=0.0).to(tl.float32)
    tl.store(y_ptr + offs_m[:, None].to(tl.int64) * E + offs_n[None, :],
             acc.to(y_ptr.dtype.element_ty), mask=mask)


def run(x, weight, bias, pos):
    B, C, H, W = x.shape
    E, _, P, _ = weight.shape
    GW = W // P
    NP = (H // P) * GW
    K = C * P * P
    y = torch.empty((B, NP, E), dtype=x.dtype, device=x.device)
    BM, BN, BK = 64, 64, 32
    grid = (triton.cdiv(B * NP, BM), triton.cdiv(E, BN))
    _patch_embed_kernel[grid](x, weight, bias, pos, y, C, H, W, P, GW, NP, B * NP, E, K, BLOCK_M=BM,
                              BLOCK_N=BN, BLOCK_K=BK, num_warps=4, num_stages=3)
    return y
