import torch
import triton
import triton.language as tl


@triton.jit
def _e2m1(code):
    """e2m1 code (0..15, int32) -> float32 value."""
    mag = code & 7
    e = mag >> 1
    m = (mag & 1).to(tl.float32)
    normal = (1.0 + 0.5 * m) * (1 << tl.maximum(e - 1, 0)).to(tl.float32)
    value = tl.where(e == 0, 0.5 * m, normal)
    return tl.where(code >= 8, -value, value)


@triton.jit
def _nvfp4_dequant_kernel(packed_ptr, scales_ptr, global_ptr, out_ptr, K,
                          BLOCK_BYTES: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    byte = tl.program_id(1) * BLOCK_BYTES + tl.arange(0, BLOCK_BYTES)
    mask = byte < K // 2
    b = tl.load(packed_ptr + row * (K // 2) + byte, mask=mask, other=0).to(tl.int32)
    s = tl.load(scales_ptr + row * (K // 16) + byte // 8, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(global_ptr)
    lo = (_e2m1(b & 0xF) * s) * g
    hi = (_e2m1(b >> 4) * s) * g
    base = out_ptr + row * K + 2 * byte
    tl.store(base, lo.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(base + 1, hi.to(out_ptr.dtype.element_ty), mask=mask)


def run(packed: torch.Tensor, block_scales: torch.Tensor, global_scale: torch.Tensor,
        out_dtype_probe: torch.Tensor):
    M, half = packed.shape
    K = 2 * half
    out = torch.empty((M, K), dtype=out_dtype_probe.dtype, device=packed.device)
    BLOCK_BYTES = 256
    grid = (M, triton.cdiv(half, BLOCK_BYTES))
    _nvfp4_dequant_kernel[grid](packed, block_scales, global_scale, out, K,
                                BLOCK_BYTES=BLOCK_BYTES, num_warps=4)
    return out
