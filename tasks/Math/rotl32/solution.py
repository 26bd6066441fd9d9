import torch
import triton
import triton.language as tl


@triton.jit
def _rotl32_kernel(a_ptr, s_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    s = tl.load(s_ptr + offsets, mask=mask)
    u = a.to(tl.uint32, bitcast=True)
    # s == 0 would shift by 32 (undefined): rotate by 0 is the identity
    back = tl.where(s == 0, 0, u >> (32 - s).to(tl.uint32))
    r = ((u << s.to(tl.uint32)) | back).to(tl.int32, bitcast=True)
    tl.store(out_ptr + offsets, r.to(out_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    a, s = a.contiguous(), s.contiguous()
    out = torch.empty_like(a)
    n = a.numel()
    BLOCK = 1024
    _rotl32_kernel[(triton.cdiv(n, BLOCK),)](a, s, out, n, BLOCK=BLOCK, num_warps=4)
    return out
