import torch
import triton
import triton.language as tl


@triton.jit
def _partial_l1(x_ptr, part_ptr, N, CHUNK, BLOCK: tl.constexpr):
    # Program (row, s) sums |x| over columns [s * CHUNK, (s + 1) * CHUNK) of its row.
    row = tl.program_id(0)
    s = tl.program_id(1)
    base = x_ptr + row.to(tl.int64) * N
    c0 = s * CHUNK
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, CHUNK, BLOCK):
        cols = c0 + start + tl.arange(0, BLOCK)
        mask = (cols < N) & (start + tl.arange(0, BLOCK) < CHUNK)
        acc += tl.abs(tl.load(base + cols, mask=mask, other=0.0).to(tl.float32))
    tl.store(part_ptr + row * tl.num_programs(1) + s, tl.sum(acc, axis=0))


@triton.jit
def _combine(part_ptr, out_ptr, S, BLOCK_S: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_S)
    p = tl.load(part_ptr + row * S + offs, mask=offs < S, other=0.0)
    tl.store(out_ptr + row, tl.sum(p, axis=0))


def run(x: torch.Tensor) -> torch.Tensor:
    B, N = x.shape
    x = x.contiguous()
    BLOCK = min(triton.next_power_of_2(N), 2048)
    S = min(triton.cdiv(N, BLOCK), 256)  # programs per row
    CHUNK = triton.cdiv(triton.cdiv(N, S), BLOCK) * BLOCK
    S = triton.cdiv(N, CHUNK)
    part = torch.empty((B, S), dtype=torch.float32, device=x.device)
    out = torch.empty((B,), dtype=torch.float32, device=x.device)
    _partial_l1[(B, S)](x, part, N, CHUNK, BLOCK=BLOCK, num_warps=4)
    _combine[(B,)](part, out, S, BLOCK_S=triton.next_power_of_2(S), num_warps=4)
    return out
