import torch
import triton
import triton.language as tl


@triton.jit
def _partial_min(x_ptr, part_ptr, M, N, stride_m, stride_n, ROWS_PER: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    s = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    acc = tl.full([BLOCK_M, BLOCK_N], float("inf"), dtype=tl.float32)
    for r in range(0, ROWS_PER, BLOCK_M):
        rows = s * ROWS_PER + r + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        ptrs = x_ptr + rows.to(tl.int64)[:, None] * stride_m + cols.to(tl.int64)[None, :] * stride_n
        acc = tl.minimum(acc, tl.load(ptrs, mask=mask, other=float("inf")).to(tl.float32))
    tl.store(part_ptr + s.to(tl.int64) * N + cols, tl.min(acc, axis=0), mask=cmask)


@triton.jit
def _combine(part_ptr, out_ptr, S, N, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    acc = tl.full([BLOCK_N], float("inf"), dtype=tl.float32)
    for s in range(0, S):
        acc = tl.minimum(acc, tl.load(part_ptr + s * N + cols, mask=cmask, other=float("inf")))
    tl.store(out_ptr + cols, acc.to(out_ptr.dtype.element_ty), mask=cmask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    BLOCK_N = min(triton.next_power_of_2(N), 64)
    BLOCK_M = min(triton.next_power_of_2(M), 64)
    ROWS_PER = max(BLOCK_M, triton.next_power_of_2(triton.cdiv(M, 64)))
    S = triton.cdiv(M, ROWS_PER)
    part = torch.empty((S, N), dtype=torch.float32, device=x.device)
    out = torch.empty((N,), dtype=x.dtype, device=x.device)
    _partial_min[(S, triton.cdiv(N, BLOCK_N))](x, part, M, N, x.stride(0), x.stride(1),
                                               ROWS_PER=ROWS_PER, BLOCK_M=BLOCK_M,
                                               BLOCK_N=BLOCK_N, num_warps=4)
    BLOCK_C = min(triton.next_power_of_2(N), 1024)
    _combine[(triton.cdiv(N, BLOCK_C),)](part, out, S, N, BLOCK_N=BLOCK_C, num_warps=4)
    return out
