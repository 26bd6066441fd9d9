import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_bwd_kernel(y_ptr, g_ptr, dx_ptr, N, sym, syn, sgm, sgn,
                        BLOCK_N: tl.constexpr, SINGLE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    y_row = y_ptr + row * sym
    g_row = g_ptr + row * sgm
    o_row = dx_ptr + row * N
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK_N)
        mask = cols < N
        y = tl.load(y_row + cols * syn, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(g_row + cols * sgn, mask=mask, other=0.0).to(tl.float32)
        dot = tl.sum(g * y, axis=0)
        tl.store(o_row + cols, (y * (g - dot)).to(dx_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = cols < N
            y = tl.load(y_row + cols * syn, mask=mask, other=0.0).to(tl.float32)
            g = tl.load(g_row + cols * sgn, mask=mask, other=0.0).to(tl.float32)
            acc += g * y
        dot = tl.sum(acc, axis=0)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = cols < N
            y = tl.load(y_row + cols * syn, mask=mask, other=0.0).to(tl.float32)
            g = tl.load(g_row + cols * sgn, mask=mask, other=0.0).to(tl.float32)
            tl.store(o_row + cols, (y * (g - dot)).to(dx_ptr.dtype.element_ty), mask=mask)


def run(y: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = y.shape
    dx = torch.empty((M, N), dtype=y.dtype, device=y.device)
    MAX_BLOCK = 8192
    BLOCK_N = min(triton.next_power_of_2(N), MAX_BLOCK)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _softmax_bwd_kernel[(M,)](y, grad_out, dx, N, y.stride(0), y.stride(1), grad_out.stride(0),
                              grad_out.stride(1), BLOCK_N=BLOCK_N, SINGLE_PASS=N <= MAX_BLOCK,
                              num_warps=num_warps)
    return dx
