import torch
import triton
import triton.language as tl


@triton.jit
def _cosine_similarity_kernel(a_ptr, b_ptr, out_ptr, D, eps, BLOCK: tl.constexpr):
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
    na = tl.maximum(tl.sqrt(tl.sum(aa, axis=0)), eps)
    nb = tl.maximum(tl.sqrt(tl.sum(bb, axis=0)), eps)
    cos = tl.sum(ab, axis=0) / (na * nb)
    tl.store(out_ptr + row, cos.to(out_ptr.dtype.element_ty))


def run(x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    M, D = x1.shape
    a = x1.contiguous()
    b = x2.contiguous()
    out = torch.empty((M,), dtype=a.dtype, device=a.device)
    BLOCK = min(triton.next_power_of_2(D), 2048)
    _cosine_similarity_kernel[(M,)](a, b, out, D, 1e-8, BLOCK=BLOCK, num_warps=4)
    return out
