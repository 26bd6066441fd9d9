import torch
import triton
import triton.language as tl


@triton.jit
def _kl_bwd_kernel(t_ptr, g_ptr, dx_ptr, n, inv_rows, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    scale = -tl.load(g_ptr) * inv_rows
    tl.store(dx_ptr + offs, (scale * t).to(dx_ptr.dtype.element_ty), mask=mask)


def run(input: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    N, C = input.shape
    target = target.contiguous()
    dx = torch.empty((N, C), dtype=input.dtype, device=input.device)
    n = N * C
    BLOCK = 1024
    _kl_bwd_kernel[(triton.cdiv(n, BLOCK),)](target, grad_out, dx, n, 1.0 / N, BLOCK=BLOCK,
                                             num_warps=4)
    return dx
