import torch
import triton
import triton.language as tl


@triton.jit
def _dot_partial_kernel(x_ptr, y_ptr, ws_ptr, M, N, ROWS_PER_PROG, stride_xm, stride_xn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program p: the float32 sum of x * y over rows [p * ROWS_PER_PROG, ...), all columns,
    # in [BLOCK_M, BLOCK_N] tiles (x through its strides, y contiguous).
    pid = tl.program_id(0)
    row0 = pid * ROWS_PER_PROG
    row_end = tl.minimum(row0 + ROWS_PER_PROG, M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r in range(row0, row_end, BLOCK_M):
        rows = r + tl.arange(0, BLOCK_M)
        mask_m = rows < row_end
        for c in range(0, N, BLOCK_N):
            cols = c + tl.arange(0, BLOCK_N)
            mask = mask_m[:, None] & (cols[None, :] < N)
            x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride_xm + cols[None, :] * stride_xn,
                        mask=mask, other=0.0).to(tl.float32)
            y = tl.load(y_ptr + rows[:, None].to(tl.int64) * N + cols[None, :],
                        mask=mask, other=0.0).to(tl.float32)
            acc += x * y
    tl.store(ws_ptr + pid, tl.sum(tl.sum(acc, axis=1), axis=0))


@triton.jit
def _final_sum_kernel(ws_ptr, out_ptr, P, BLOCK: tl.constexpr):
    # One program adds the P partial sums in a fixed order and rounds once.
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for p in range(0, P, BLOCK):
        offs = p + tl.arange(0, BLOCK)
        acc += tl.load(ws_ptr + offs, mask=offs < P, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def run(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = y.contiguous()
    out = torch.empty((), dtype=x.dtype, device=x.device)
    # ~1024 programs for large inputs, each owning whole rows, BLOCK_M of them per tile.
    rows_per_prog = max(1, triton.cdiv(M, 1024))
    BLOCK_M = min(8, triton.next_power_of_2(rows_per_prog))
    BLOCK_N = min(512, triton.next_power_of_2(N))
    P = triton.cdiv(M, rows_per_prog)
    ws = torch.empty((P,), dtype=torch.float32, device=x.device)
    _dot_partial_kernel[(P,)](x, y, ws, M, N, rows_per_prog, x.stride(0), x.stride(1),
                              BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    _final_sum_kernel[(1,)](ws, out, P, BLOCK=1024)
    return out
