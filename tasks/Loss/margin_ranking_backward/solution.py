import torch
import triton
import triton.language as tl


@triton.jit
def _margin_ranking_bwd_kernel(a_ptr, b_ptr, y_ptr, go_ptr, ga_ptr, gb_ptr, T, margin,
                               BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < T
    a = tl.load(a_ptr + offs, mask=m, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=m, other=0.0).to(tl.float32)
    scale = tl.load(go_ptr) / T
    t = -y * (a - b) + margin
    g = tl.where(t >= 0.0, -y * scale, 0.0)  # clamp_min passes the gradient at t == 0
    tl.store(ga_ptr + offs, g.to(ga_ptr.dtype.element_ty), mask=m)
    tl.store(gb_ptr + offs, (-g).to(gb_ptr.dtype.element_ty), mask=m)


def run(x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor, margin: float,
        grad_out: torch.Tensor):
    a = x1.contiguous()
    b = x2.contiguous()
    yy = y.contiguous()
    ga = torch.empty_like(a)
    gb = torch.empty_like(a)
    T = a.numel()
    BLOCK = 1024
    _margin_ranking_bwd_kernel[(triton.cdiv(T, BLOCK),)](a, b, yy, grad_out, ga, gb, T, margin,
                                                         BLOCK=BLOCK, num_warps=4)
    return ga, gb
