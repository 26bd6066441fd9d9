import math

import torch
import triton
import triton.language as tl


@triton.jit
def _jsd_bwd_kernel(x_ptr, y_ptr, g_ptr, dx_ptr, n, inv_rows, log_beta, log_1mb, one_mb,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = log_beta + y
    b = log_1mb + x
    hi = tl.maximum(a, b)
    log_m = hi + tl.log(1.0 + tl.exp(tl.minimum(a, b) - hi))
    scale = tl.load(g_ptr) * inv_rows
    d = scale * one_mb * tl.exp(x) * (x - log_m)
    tl.store(dx_ptr + offs, d.to(dx_ptr.dtype.element_ty), mask=mask)


def run(input: torch.Tensor, target: torch.Tensor, beta: float,
        grad_out: torch.Tensor) -> torch.Tensor:
    N, C = input.shape
    x, y = input.contiguous(), target.contiguous()
    dx = torch.empty((N, C), dtype=input.dtype, device=input.device)
    n = N * C
    BLOCK = 1024
    _jsd_bwd_kernel[(triton.cdiv(n, BLOCK),)](x, y, grad_out, dx, n, 1.0 / N, math.log(beta),
                                              math.log(1.0 - beta), 1.0 - beta, BLOCK=BLOCK,
                                              num_warps=4)
    return dx
