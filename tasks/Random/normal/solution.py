import torch
import triton
import triton.language as tl


@triton.jit
def _normal_kernel(params_ptr, out_ptr, N, stride_p, seed, BLOCK: tl.constexpr):
    # One program per (row, block of columns); tl.randn is a Box-Muller transform of two
    # Philox uniforms keyed on (seed, linear index).
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    mean = tl.load(params_ptr + row * stride_p).to(tl.float32)
    std = tl.load(params_ptr + row * stride_p + 1).to(tl.float32)
    offs = row.to(tl.int64) * N + cols
    z = tl.randn(seed, offs)
    tl.store(out_ptr + offs, mean + std * z, mask=mask)


def run(params: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    p = params.contiguous()
    m = p.shape[0]
    out = torch.empty((m, n), device=p.device, dtype=torch.float32)
    BLOCK = 1024
    _normal_kernel[(m, triton.cdiv(n, BLOCK))](p, out, n, p.stride(0), seed, BLOCK=BLOCK)
    return out
