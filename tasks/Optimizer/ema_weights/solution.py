import triton
import triton.language as tl


@triton.jit
def _ema_kernel(ema_ptr, p_ptr, n_elements, weight, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    ema = tl.load(ema_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = ema + weight * (p - ema)
    # In place: each program reads its elements before writing them back.
    tl.store(ema_ptr + offs, out.to(ema_ptr.dtype.element_ty), mask=mask)


def run(ema, p, step: int):
    decay = min(0.9999, 1.0 - (1.0 + step) ** -0.75)
    n = ema.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _ema_kernel[(triton.cdiv(n, BLOCK),)](ema, p, n, 1.0 - decay, BLOCK=BLOCK, num_warps=4)
