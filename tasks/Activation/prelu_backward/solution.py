import torch
import triton
import triton.language as tl


@triton.jit
def _prelu_bwd_kernel(x_ptr, w_ptr, g_ptr, dx_ptr, pdw_ptr, M, N, ROWS,
                      BLOCK_N: tl.constexpr):
    # program (c, p): columns block c, rows [p * ROWS, (p + 1) * ROWS); row p of the [P, N]
    # float32 partial grad_weight
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    p = tl.program_id(1)
    cmask = cols < N
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for r in range(0, ROWS):
        row = p.to(tl.int64) * ROWS + r
        mask = cmask & ((cols * 0 + row) < M)  # a scalar row test broadcast over the block
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        pos = x > 0.0
        tl.store(dx_ptr + row * N + cols, tl.where(pos, g, w * g).to(dx_ptr.dtype.element_ty),
                 mask=mask)
        acc += tl.where(pos, 0.0, x * g)
    tl.store(pdw_ptr + p.to(tl.int64) * N + cols, acc, mask=cmask)


@triton.jit
def _sum_partials_kernel(pdw_ptr, dw_ptr, P, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cmask = cols < N
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    for p in range(0, P):
        dw += tl.load(pdw_ptr + p * N + cols, mask=cmask, other=0.0)
    tl.store(dw_ptr + cols, dw.to(dw_ptr.dtype.element_ty), mask=cmask)


def run(x: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor):
    M, N = x.shape
    x, weight, grad_out = x.contiguous(), weight.contiguous(), grad_out.contiguous()
    dx = torch.empty_like(x)
    dw = torch.empty((N,), dtype=x.dtype, device=x.device)
    ROWS = 64
    P = triton.cdiv(M, ROWS)
    pdw = torch.empty((P, N), dtype=torch.float32, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 512)
    _prelu_bwd_kernel[(triton.cdiv(N, BLOCK_N), P)](x, weight, grad_out, dx, pdw, M, N, ROWS,
                                                    BLOCK_N=BLOCK_N, num_warps=4)
    BLOCK = min(triton.next_power_of_2(N), 256)
    _sum_partials_kernel[(triton.cdiv(N, BLOCK),)](pdw, dw, P, N, BLOCK=BLOCK, num_warps=4)
    return dx, dw
