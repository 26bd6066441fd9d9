import torch
import triton
import triton.language as tl


@triton.jit
def _dropout_chunk(x_ptr, out_ptr, offs, n_elements, r, p, scale):
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = tl.where(r >= p, x * scale, 0.0)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _dropout_kernel(x_ptr, out_ptr, n_elements, p, scale, seed, BLOCK: tl.constexpr):
    # Each program covers 4 * BLOCK consecutive elements. One counter-based Philox call gives
    # four independent uniforms, so the mask depends only on (seed, element position).
    pid = tl.program_id(0)
    lane = tl.arange(0, BLOCK)
    r0, r1, r2, r3 = tl.rand4x(seed, pid * BLOCK + lane)
    base = pid.to(tl.int64) * (4 * BLOCK) + lane
    _dropout_chunk(x_ptr, out_ptr, base, n_elements, r0, p, scale)
    _dropout_chunk(x_ptr, out_ptr, base + BLOCK, n_elements, r1, p, scale)
    _dropout_chunk(x_ptr, out_ptr, base + 2 * BLOCK, n_elements, r2, p, scale)
    _dropout_chunk(x_ptr, out_ptr, base + 3 * BLOCK, n_elements, r3, p, scale)


def run(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    x_c = x.contiguous()
    out = torch.empty_like(x_c)
    n = x_c.numel()
    BLOCK = 512
    _dropout_kernel[(triton.cdiv(n, 4 * BLOCK),)](x_c, out, n, p, 1.0 / (1.0 - p), seed,
                                                  BLOCK=BLOCK, num_warps=4)
    return out
