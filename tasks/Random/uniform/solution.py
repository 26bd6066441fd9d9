import torch
import triton
import triton.language as tl


@triton.jit
def _uniform_kernel(bounds_ptr, out_ptr, N, stride_b, seed, BLOCK: tl.constexpr):
    # One program per (row, block of columns); the Philox counter is the element's linear index.
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    low = tl.load(bounds_ptr + row * stride_b).to(tl.float32)
    high = tl.load(bounds_ptr + row * stride_b + 1).to(tl.float32)
    offs = row.to(tl.int64) * N + cols
    u = tl.rand(seed, offs)
    out = low + (high - low) * u
    out = tl.minimum(tl.maximum(out, low), high)  # rounding must not leave the range
    tl.store(out_ptr + offs, out, mask=mask)


def run(bounds: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    b = bounds.contiguous()
    m = b.shape[0]
    out = torch.empty((m, n), device=b.device, dtype=torch.float32)
    BLOCK = 1024
    _uniform_kernel[(m, triton.cdiv(n, BLOCK))](b, out, n, b.stride(0), seed, BLOCK=BLOCK)
    return out
