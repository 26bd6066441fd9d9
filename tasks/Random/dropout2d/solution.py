import torch
import triton
import triton.language as tl


@triton.jit
def _dropout2d_kernel(x_ptr, out_ptr, C, L, sx_b, sx_c, sx_l, p, scale, seed,
                      BLOCK_L: tl.constexpr):
    # one program per (sample, channel): one Philox uniform keyed on (seed, b * C + c) decides
    # the whole channel
    ch = tl.program_id(0)
    b = ch // C
    c = ch % C
    cols = tl.arange(0, BLOCK_L)
    u = tl.rand(seed, tl.zeros([BLOCK_L], dtype=tl.int32) + ch)
    keep = u >= p
    x_row = x_ptr + b.to(tl.int64) * sx_b + c.to(tl.int64) * sx_c
    out_row = out_ptr + ch.to(tl.int64) * L
    for start in range(0, L, BLOCK_L):
        offs = start + cols
        mask = offs < L
        x = tl.load(x_row + offs * sx_l, mask=mask, other=0.0).to(tl.float32)
        y = tl.where(keep, x * scale, 0.0)
        tl.store(out_row + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    B, C, L = x.shape
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    BLOCK_L = min(triton.next_power_of_2(L), 1024)
    _dropout2d_kernel[(B * C,)](x, out, C, L, x.stride(0), x.stride(1), x.stride(2), p,
                                1.0 / (1.0 - p), seed, BLOCK_L=BLOCK_L, num_warps=4)
    return out
