import torch
import triton
import triton.language as tl


@triton.jit
def _latest_max(v1, i1, v2, i2):
    # (v2, i2) is the later element: it takes over when it ties or beats the running maximum.
    take = v2 >= v1
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def _cummax_rows_kernel(x_ptr, val_ptr, idx_ptr, N, stride_xm, stride_xn,
                        BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = row * N
    cv = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)  # carried maximum (broadcast)
    ci = tl.zeros([BLOCK_N], dtype=tl.int32)                   # carried index
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        v, i = tl.associative_scan((x, cols), 0, _latest_max)
        # the carry precedes the whole block; a block element that ties the carry takes over
        take = v >= cv
        v = tl.where(take, v, cv)
        i = tl.where(take, i, ci)
        tl.store(val_ptr + o_row + cols, v.to(val_ptr.dtype.element_ty), mask=mask)
        tl.store(idx_ptr + o_row + cols, i.to(tl.int64), mask=mask)
        # carry the value and index at the last valid column of this block
        last = tl.minimum(N - start, BLOCK_N) - 1
        sel = tl.arange(0, BLOCK_N) == last
        cv = tl.zeros([BLOCK_N], dtype=tl.float32) + tl.max(tl.where(sel, v, -float("inf")), axis=0)
        ci = tl.zeros([BLOCK_N], dtype=tl.int32) + tl.max(tl.where(sel, i, -1), axis=0)


def run(x: torch.Tensor):
    M, N = x.shape
    values = torch.empty((M, N), dtype=x.dtype, device=x.device)
    indices = torch.empty((M, N), dtype=torch.int64, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 2048)
    _cummax_rows_kernel[(M,)](x, values, indices, N, x.stride(0), x.stride(1),
                              BLOCK_N=BLOCK_N, num_warps=4)
    return values, indices
