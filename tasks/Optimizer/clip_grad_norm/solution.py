import torch
import triton
import triton.language as tl


@triton.jit
def _partial_sumsq_kernel(g_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    g = tl.load(g_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(partial_ptr + pid, tl.sum(g * g, axis=0))


@triton.jit
def _norm_kernel(partial_ptr, norm_ptr, coef_ptr, num_partials, max_norm, eps,
                 BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, num_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < num_partials, other=0.0)
    total = tl.sqrt(tl.sum(acc, axis=0))
    tl.store(norm_ptr, total)
    tl.store(coef_ptr, tl.minimum(max_norm / (total + eps), 1.0))


@triton.jit
def _scale_kernel(g_ptr, coef_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(g_ptr + offs, (g * tl.load(coef_ptr)).to(g_ptr.dtype.element_ty), mask=mask)


def run(g, total_norm):
    n = g.numel()
    BLOCK = 1024
    blocks = triton.cdiv(n, BLOCK)
    partial = torch.empty((blocks,), dtype=torch.float32, device=g.device)
    coef = torch.empty((1,), dtype=torch.float32, device=g.device)
    # Every partial sum is taken (first kernel) before any element is scaled (third): the
    # launches on one stream keep that order, so g can be scaled in place.
    _partial_sumsq_kernel[(blocks,)](g, partial, n, BLOCK=BLOCK, num_warps=4)
    _norm_kernel[(1,)](partial, total_norm, coef, blocks, 1.0, 1e-6, BLOCK=64, num_warps=2)
    _scale_kernel[(blocks,)](g, coef, n, BLOCK=BLOCK, num_warps=4)
