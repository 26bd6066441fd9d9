import torch
import triton
import triton.language as tl


@triton.jit
def _act_quant_kernel(x_ptr, q_ptr, scale_ptr, K, G, FP8_MAX: tl.constexpr,
                      GROUP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    group = tl.program_id(1)
    cols = group * GROUP + tl.arange(0, GROUP)
    mask = cols < K
    x = tl.load(x_ptr + row * K + cols, mask=mask, other=0.0).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-10) / FP8_MAX
    # saturate, then round once; NaN stays NaN compiled as in the interpreter (min.f32/max.f32
    # would turn a NaN into -57344 on the GPU; an Inf in x makes x / scale NaN)
    y = tl.clamp(x / scale, -FP8_MAX, FP8_MAX, propagate_nan=tl.PropagateNan.ALL)
    tl.store(q_ptr + row * K + cols, y.to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(scale_ptr + row * G + group, scale)


def run(x: torch.Tensor):
    M, K = x.shape
    x = x.contiguous()
    G = triton.cdiv(K, 128)
    q = torch.empty((M, K), dtype=torch.float8_e5m2, device=x.device)
    scale = torch.empty((M, G), dtype=torch.float32, device=x.device)
    _act_quant_kernel[(M, G)](x, q, scale, K, G, FP8_MAX=57344.0, GROUP=128, num_warps=1)
    return q, scale
