import torch
import triton
import triton.language as tl


@triton.jit
def _partial_sq_err(a_ptr, b_ptr, part_ptr, M, N, sam, san, sbm, sbn, ROWS: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program p: rows [p * ROWS, (p + 1) * ROWS), all columns.
    p = tl.program_id(0)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for r in range(0, ROWS, BLOCK_M):
        rows = (p * ROWS + r + tl.arange(0, BLOCK_M)).to(tl.int64)
        rmask = rows < M
        for c in range(0, N, BLOCK_N):
            cols = (c + tl.arange(0, BLOCK_N)).to(tl.int64)
            mask = rmask[:, None] & (cols < N)[None, :]
            a = tl.load(a_ptr + rows[:, None] * sam + cols[None, :] * san, mask=mask, other=0.0)
            b = tl.load(b_ptr + rows[:, None] * sbm + cols[None, :] * sbn, mask=mask, other=0.0)
            d = a.to(tl.float32) - b.to(tl.float32)
            acc += d * d
    tl.store(part_ptr + p, tl.sum(tl.sum(acc, axis=1), axis=0))


@triton.jit
def _finish(part_ptr, out_ptr, P, inv_count, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < P, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * inv_count)


def run(input: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    M, N = input.shape
    BLOCK_N = min(triton.next_power_of_2(N), 512)
    BLOCK_M = max(1, min(triton.next_power_of_2(M), 2048 // BLOCK_N))
    ROWS = max(BLOCK_M, triton.next_power_of_2(triton.cdiv(M, 1024)))  # <= ~1024 programs
    P = triton.cdiv(M, ROWS)
    part = torch.empty((P,), dtype=torch.float32, device=input.device)
    out = torch.empty((), dtype=torch.float32, device=input.device)
    _partial_sq_err[(P,)](input, target, part, M, N, input.stride(0), input.stride(1),
                          target.stride(0), target.stride(1), ROWS=ROWS, BLOCK_M=BLOCK_M,
                          BLOCK_N=BLOCK_N, num_warps=4)
    _finish[(1,)](part, out, P, 1.0 / (M * N), BLOCK=1024, num_warps=4)
    return out
