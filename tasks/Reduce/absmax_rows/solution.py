import torch
import triton
import triton.language as tl


@triton.jit
def _absmax_rows_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    row_off = rows.to(tl.int64)[:, None] * stride_xm
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + row_off + cols[None, :] * stride_xn, mask=mask, other=0.0)
        acc = tl.maximum(acc, tl.abs(x.to(tl.float32)))
    tl.store(out_ptr + rows, tl.max(acc, axis=1), mask=row_mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=torch.float32, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 1024)
    BLOCK_M = max(1, 4096 // BLOCK_N)
    _absmax_rows_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), x.stride(1),
                                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                    num_warps=4)
    return out
