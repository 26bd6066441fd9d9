import torch
import triton
import triton.language as tl


@triton.jit
def _scale_causal_softmax_kernel(x_ptr, o_ptr, S, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # over BH * S rows
    i = row % S
    cols = tl.arange(0, BLOCK)
    visible = cols <= i
    x = tl.load(x_ptr + row * S + cols, mask=visible, other=0.0).to(tl.float32)
    z = tl.where(visible, x * scale, -float("inf"))
    z_max = tl.max(z, axis=0)
    e = tl.exp(z - z_max)
    out = e / tl.sum(e, axis=0)
    tl.store(o_ptr + row * S + cols, out.to(o_ptr.dtype.element_ty), mask=cols < S)


def run(scores, scale):
    BH, S, _ = scores.shape
    out = torch.empty((BH, S, S), dtype=scores.dtype, device=scores.device)
    BLOCK = triton.next_power_of_2(S)
    num_warps = 4 if BLOCK <= 2048 else (8 if BLOCK <= 4096 else 16)
    _scale_causal_softmax_kernel[(BH * S,)](scores, out, S, scale, BLOCK=BLOCK,
                                            num_warps=num_warps)
    return out
