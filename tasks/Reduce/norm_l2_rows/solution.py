import torch
import triton
import triton.language as tl


@triton.jit
def _l2_rows_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    row_off = rows.to(tl.int64)[:, None] * stride_xm
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + row_off + cols[None, :] * stride_xn, mask=mask,
                    other=0.0).to(tl.float32)
        acc += x * x
    norm = tl.sqrt(tl.sum(acc, axis=1))
    tl.store(out_ptr + rows, norm.to(out_ptr.dtype.element_ty), mask=row_mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 1024)
    BLOCK_M = max(1, 4096 // BLOCK_N)
    _l2_rows_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), x.stride(1),
                                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
