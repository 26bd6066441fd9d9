import torch
import triton
import triton.language as tl


# Sizes are not specialized: Triton would compile once per pattern of which sizes are 1 or
# multiples of 16, i.e. per shape (30 float32/16-bit compilations for this task's GPU cases,
# 18 of them float32 FMA dots); the strides stay specialized (x's channel stride of 1 is the
# channels-last fast path, and their 16-divisibility lets the loads vectorize).
@triton.jit(do_not_specialize=["NB", "H", "W", "OH", "OW", "CG", "KG"])
def _conv2d_kernel(x_ptr, w_ptr, b_ptr, y_ptr,
                   NB, H, W, OH, OW, CG, KG,
                   stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
                   sx_n, sx_c, sx_h, sx_w, sw_k, sw_c, sw_r, sw_s,
                   sy_n, sy_k, sy_h, sy_w,
                   KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr,
                   BLOCK_P: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_C: tl.constexpr):
    # Implicit GEMM: rows are output pixels p = (n, oh, ow), columns are output channels of one
    # group, the reduction runs over the KH x KW taps (unrolled) times the group's input
    # channels (BLOCK_C at a time). Zero padding comes from masked loads; nothing is
    # materialised. Axis 1 enumerates (group, channel block).
    pid_p = tl.program_id(0)
    pid_k = tl.program_id(1)
    k_tiles = tl.cdiv(KG, BLOCK_K)
    g = pid_k // k_tiles
    offs_p = pid_p * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_k = g * KG + (pid_k % k_tiles) * BLOCK_K + tl.arange(0, BLOCK_K)
    mask_p = offs_p < NB * OH * OW
    mask_k = offs_k < (g + 1) * KG
    n = offs_p // (OH * OW)
    ohw = offs_p % (OH * OW)
    oh = ohw // OW
    ow = ohw % OW
    x_base = x_ptr + n.to(tl.int64) * sx_n + (g * CG).to(tl.int64) * sx_c
    offs_c = tl.arange(0, BLOCK_C)

    acc = tl.zeros((BLOCK_P, BLOCK_K), dtype=tl.float32)
    for r in tl.static_range(KH):
        for s in tl.static_range(KW):
            ih = oh * stride_h - pad_h + r * dil_h
            iw = ow * stride_w - pad_w + s * dil_w
            inside = mask_p & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            x_tap = x_base + ih * sx_h + iw * sx_w
            w_tap = w_ptr + r * sw_r + s * sw_s
            for c0 in range(0, CG, BLOCK_C):
                cs = c0 + offs_c
                mask_c = cs < CG
                xt = tl.load(x_tap[:, None] + cs[None, :] * sx_c,
                             mask=inside[:, None] & mask_c[None, :], other=0.0)
                wt = tl.load(w_tap + cs[:, None] * sw_c + offs_k[None, :] * sw_k,
                             mask=mask_c[:, None] & mask_k[None, :], other=0.0)
                acc = tl.dot(xt, wt, acc, input_precision="ieee")

    if HAS_BIAS:
        bias = tl.load(b_ptr + offs_k, mask=mask_k, other=0.0).to(tl.float32)
        acc += bias[None, :]
    y_rows = y_ptr + n.to(tl.int64) * sy_n + oh * sy_h + ow * sy_w
    tl.store(y_rows[:, None] + offs_k[None, :] * sy_k, acc.to(y_ptr.dtype.element_ty),
             mask=mask_p[:, None] & mask_k[None, :])


def _conv2d(x, w, b, y, stride, padding, dilation, groups):
    NB, C, H, W = x.shape
    K, CG, KH, KW = w.shape
    _, _, OH, OW = y.shape
    KG = K // groups
    # 16-bit inputs prefer a deep channel chunk on tensor cores; float32 (FMA path, no TF32)
    # thin ones, as conv2d_3x3 measured on an H200. Each of the 9 unrolled taps holds its own
    # FMA dot: BLOCK_C = 32 was 18432 FMAs of PTX, 13.8 s of CPU per sm_90 compile (16: 6.5 s).
    low_precision = x.dtype != torch.float32
    BLOCK_P = 128
    BLOCK_K = min(64, max(16, triton.next_power_of_2(KG)))
    BLOCK_C = min(64 if low_precision else 16, max(16, triton.next_power_of_2(CG)))
    grid = (triton.cdiv(NB * OH * OW, BLOCK_P), groups * triton.cdiv(KG, BLOCK_K))
    _conv2d_kernel[grid](x, w, b if b is not None else w, y,
                         NB, H, W, OH, OW, CG, KG,
                         stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1],
                         x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                         w.stride(0), w.stride(1), w.stride(2), w.stride(3),
                         y.stride(0), y.stride(1), y.stride(2), y.stride(3),
                         KH=KH, KW=KW, HAS_BIAS=b is not None,
                         BLOCK_P=BLOCK_P, BLOCK_K=BLOCK_K, BLOCK_C=BLOCK_C,
                         num_warps=4, num_stages=3)


def run(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    NB, C, H, W = x.shape
    K = w.shape[0]
    b = b.contiguous()
    # Output in channels_last as well; the kernel reads and writes through strides.
    y = torch.empty((NB, K, H, W), dtype=x.dtype, device=x.device,
                    memory_format=torch.channels_last)
    _conv2d(x, w, b, y, (1, 1), (1, 1), (1, 1), 1)
    return y
