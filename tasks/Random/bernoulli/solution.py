import torch
import triton
import triton.language as tl


@triton.jit
def _bernoulli_kernel(probs_ptr, out_ptr, N, stride_r, stride_c, seed, BLOCK: tl.constexpr):
    # One program per (row, block of columns): out = u < p with u a Philox uniform keyed on
    # (seed, linear index); u < 0 never holds and u < 1 always does, so p = 0 and 1 are exact.
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    p = tl.load(probs_ptr + row * stride_r + cols * stride_c, mask=mask, other=0.0)
    offs = row.to(tl.int64) * N + cols
    u = tl.rand(seed, offs)
    tl.store(out_ptr + offs, (u < p.to(tl.float32)).to(tl.int8), mask=mask)


def run(probs: torch.Tensor, seed: int) -> torch.Tensor:
    m, n = probs.shape
    out = torch.empty((m, n), device=probs.device, dtype=torch.int8)
    BLOCK = 1024
    _bernoulli_kernel[(m, triton.cdiv(n, BLOCK))](probs, out, n, probs.stride(0),
                                                   probs.stride(1), seed, BLOCK=BLOCK)
    return out.view(torch.bool)
