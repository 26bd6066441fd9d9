import torch
import triton
import triton.language as tl


@triton.jit
def _lrn_kernel(x_ptr, out_ptr, C, HW, alpha, beta, k, SIZE: tl.constexpr,
                BLOCK: tl.constexpr):
    # out = x / (k + alpha / SIZE * sum of x^2 over channels c - SIZE//2 .. c + (SIZE-1)//2,
    # clipped to [0, C))^beta, squares summed in float32. One program per (n, c, pixel block).
    plane = tl.program_id(0)
    c = plane % C
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < HW
    base = plane.to(tl.int64) * HW
    ssq = tl.zeros((BLOCK,), tl.float32)
    for d in range(SIZE):
        cc = c - SIZE // 2 + d + tl.zeros((BLOCK,), tl.int32)
        inside = mask & (cc >= 0) & (cc < C)
        v = tl.load(x_ptr + base + (cc - c).to(tl.int64) * HW + offs, mask=inside,
                    other=0.0).to(tl.float32)
        ssq += v * v
    x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    div = tl.exp2(beta * tl.log2(k + (alpha / SIZE) * ssq))
    tl.store(out_ptr + base + offs, (x / div).to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, alpha: float, beta: float, k: float) -> torch.Tensor:
    n, c, h, w = x.shape
    xc = x.contiguous()
    out = torch.empty_like(xc)
    BLOCK = 256
    _lrn_kernel[(n * c, triton.cdiv(h * w, BLOCK))](xc, out, c, h * w, alpha, beta, k,
                                                    SIZE=5, BLOCK=BLOCK)
    return out
