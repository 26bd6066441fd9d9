import torch
import triton
import triton.language as tl


@triton.jit
def _exponential_kernel(rate_ptr, out_ptr, N, seed, BLOCK: tl.constexpr):
    # Inversion: x = -log(1 - u) / rate with u a Philox uniform in [0, 1) keyed on the element's
    # linear index; 1 - u lies in (0, 1], so x is finite and >= 0.
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    rate = tl.load(rate_ptr + row).to(tl.float32)
    offs = row.to(tl.int64) * N + cols
    u = tl.rand(seed, offs)
    x = -tl.log(1.0 - u) / rate
    tl.store(out_ptr + offs, x, mask=mask)


def run(rate: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    m = rate.shape[0]
    r = rate.contiguous()
    out = torch.empty((m, n), device=r.device, dtype=torch.float32)
    BLOCK = 1024
    _exponential_kernel[(m, triton.cdiv(n, BLOCK))](r, out, n, seed, BLOCK=BLOCK)
    return out
