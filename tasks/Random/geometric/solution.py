import torch
import triton
import triton.language as tl


@triton.jit
def _geometric_kernel(p_ptr, out_ptr, N, seed, BLOCK: tl.constexpr):
    # inversion: k = ceil(log(u) / log(1 - p)) with u uniform in (0, 1]; a 32-bit uniform built
    # from 24 bits above 0 keeps log finite
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    p = tl.load(p_ptr + row)
    offs = row.to(tl.int64) * N + cols
    bits = tl.randint(seed, offs)
    u = ((bits >> 8).to(tl.float32) + 1.0) * (1.0 / 16777216.0)  # (0, 1]
    denom = tl.log(1.0 - p)
    k = tl.where(p >= 1.0, 1.0, tl.ceil(tl.log(u) / denom))
    k = tl.maximum(k, 1.0)
    tl.store(out_ptr + offs, k.to(tl.int64), mask=mask)


def run(p: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    m = p.shape[0]
    out = torch.empty((m, n), dtype=torch.int64, device=p.device)
    BLOCK = 1024
    _geometric_kernel[(m, triton.cdiv(n, BLOCK))](p, out, n, seed, BLOCK=BLOCK, num_warps=4)
    return out
