import torch
import triton
import triton.language as tl


@triton.jit
def _qkv_split_kernel(qkv_ptr, q_ptr, k_ptr, v_ptr, S, H, HKV, D, scale,
                      BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    # grid: (token blocks, B * (H + 2 * HKV)); each program moves a [BLOCK_S, D] tile of one
    # head from the token-major input to the head-major output
    pid_s = tl.program_id(0)
    pid_bh = tl.program_id(1)
    NH = H + 2 * HKV
    b = pid_bh // NH
    hh = pid_bh % NH
    offs_s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, BLOCK_D)
    mask = (offs_s[:, None] < S) & (offs_d[None, :] < D)
    src = (qkv_ptr + (b.to(tl.int64) * S + offs_s[:, None]) * (NH * D) + hh * D
           + offs_d[None, :])
    x = tl.load(src, mask=mask, other=0.0)
    if hh < H:
        dst = q_ptr + ((b.to(tl.int64) * H + hh) * S + offs_s[:, None]) * D + offs_d[None, :]
        tl.store(dst, (x.to(tl.float32) * scale).to(q_ptr.dtype.element_ty), mask=mask)
    elif hh < H + HKV:
        g = hh - H
        dst = k_ptr + ((b.to(tl.int64) * HKV + g) * S + offs_s[:, None]) * D + offs_d[None, :]
        tl.store(dst, x, mask=mask)
    else:
        g = hh - H - HKV
        dst = v_ptr + ((b.to(tl.int64) * HKV + g) * S + offs_s[:, None]) * D + offs_d[None, :]
        tl.store(dst, x, mask=mask)


def run(qkv, H, HKV, scale):
    B, S, W = qkv.shape
    D = W // (H + 2 * HKV)
    q = torch.empty((B, H, S, D), dtype=qkv.dtype, device=qkv.device)
    k = torch.empty((B, HKV, S, D), dtype=qkv.dtype, device=qkv.device)
    v = torch.empty((B, HKV, S, D), dtype=qkv.dtype, device=qkv.device)
    BLOCK_D = triton.next_power_of_2(D)
    BLOCK_S = max(1, 4096 // BLOCK_D)
    grid = (triton.cdiv(S, BLOCK_S), B * (H + 2 * HKV))
    _qkv_split_kernel[grid](qkv, q, k, v, S, H, HKV, D, scale, BLOCK_S=BLOCK_S,
                            BLOCK_D=BLOCK_D, num_warps=4)
    return q, k, v
