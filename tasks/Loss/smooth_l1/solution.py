import torch
import triton
import triton.language as tl


@triton.jit
def _partial_smooth_l1(a_ptr, b_ptr, part_ptr, n, beta, CHUNK: tl.constexpr,
                       BLOCK: tl.constexpr):
    p = tl.program_id(0)
    base = p.to(tl.int64) * CHUNK
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, CHUNK, BLOCK):
        offs = base + start + tl.arange(0, BLOCK)
        mask = offs < n
        a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        d = tl.abs(a - b)
        acc += tl.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)  # masked lanes: d = 0
    tl.store(part_ptr + p, tl.sum(acc, axis=0))


@triton.jit
def _finish(part_ptr, out_ptr, P, inv_count, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < P, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * inv_count)


def run(input: torch.Tensor, target: torch.Tensor, beta: float) -> torch.Tensor:
    a = input.contiguous()
    b = target.contiguous()
    n = a.numel()
    BLOCK = min(triton.next_power_of_2(n), 2048)
    CHUNK = max(BLOCK, triton.next_power_of_2(triton.cdiv(n, 1024)))
    P = triton.cdiv(n, CHUNK)
    part = torch.empty((P,), dtype=torch.float32, device=a.device)
    out = torch.empty((), dtype=torch.float32, device=a.device)
    _partial_smooth_l1[(P,)](a, b, part, n, beta, CHUNK=CHUNK, BLOCK=BLOCK, num_warps=4)
    _finish[(1,)](part, out, P, 1.0 / n, BLOCK=1024, num_warps=4)
    return out
