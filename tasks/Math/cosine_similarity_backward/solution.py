import torch
import triton
import triton.language as tl


@triton.jit
def _cosine_similarity_bwd_kernel(a_ptr, b_ptr, g_ptr, ga_ptr, gb_ptr, D, BLOCK: tl.constexpr):
    # One program per row: the three sums, then both gradients in a second pass.
    row = tl.program_id(0).to(tl.int64)
    ab = tl.zeros([BLOCK], dtype=tl.float32)
    aa = tl.zeros([BLOCK], dtype=tl.float32)
    bb = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < D
        a = tl.load(a_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        ab += a * b
        aa += a * a
        bb += b * b
    saa = tl.sum(aa, axis=0)
    sbb = tl.sum(bb, axis=0)
    inv_ab = 1.0 / (tl.sqrt(saa) * tl.sqrt(sbb))
    cos = tl.sum(ab, axis=0) * inv_ab
    g = tl.load(g_ptr + row).to(tl.float32)
    ca = cos / saa
    cb = cos / sbb
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < D
        a = tl.load(a_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(ga_ptr + row * D + cols, (g * (b * inv_ab - ca * a)).to(ga_ptr.dtype.element_ty),
                 mask=mask)
        tl.store(gb_ptr + row * D + cols, (g * (a * inv_ab - cb * b)).to(gb_ptr.dtype.element_ty),
                 mask=mask)


def run(x1: torch.Tensor, x2: torch.Tensor, grad_out: torch.Tensor):
    M, D = x1.shape
    a = x1.contiguous()
    b = x2.contiguous()
    g = grad_out.contiguous()
    ga = torch.empty_like(a)
    gb = torch.empty_like(a)
    BLOCK = min(triton.next_power_of_2(D), 2048)
    _cosine_similarity_bwd_kernel[(M,)](a, b, g, ga, gb, D, BLOCK=BLOCK, num_warps=4)
    return ga, gb
