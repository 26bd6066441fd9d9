import torch
import triton
import triton.language as tl


@triton.jit
def _kl_bwd_kernel(x_ptr, t_ptr, g_ptr, dx_ptr, dt_ptr, n, inv_batch, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(g_ptr) * inv_batch
    p = tl.exp(t)
    tl.store(dx_ptr + offs, (-s * p).to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dt_ptr + offs, (s * p * (t - x + 1.0)).to(dt_ptr.dtype.element_ty), mask=mask)


def run(input: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor):
    N, C = input.shape
    x = input.contiguous()
    t = target.contiguous()
    dx = torch.empty((N, C), dtype=input.dtype, device=input.device)
    dt = torch.empty((N, C), dtype=input.dtype, device=input.device)
    n = N * C
    BLOCK = 1024
    _kl_bwd_kernel[(triton.cdiv(n, BLOCK),)](x, t, grad_out, dx, dt, n, 1.0 / N, BLOCK=BLOCK,
                                             num_warps=4)
    return dx, dt
