import torch
import triton
import triton.language as tl


@triton.jit
def _cdist_kernel(a_ptr, b_ptr, out_ptr, P, R, D, stride_a, stride_b,
                  BLOCK_P: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    # One [BLOCK_P, BLOCK_R] tile of distances: the squared differences summed over D in
    # float32 from the differences themselves (exact for near-equal points), then a sqrt.
    p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    r = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_P, BLOCK_R), tl.float32)
    for d0 in range(0, D, BLOCK_D):
        d = d0 + tl.arange(0, BLOCK_D)
        a = tl.load(a_ptr + p[:, None].to(tl.int64) * stride_a + d[None, :],
                    mask=(p[:, None] < P) & (d[None, :] < D), other=0.0).to(tl.float32)
        b = tl.load(b_ptr + r[:, None].to(tl.int64) * stride_b + d[None, :],
                    mask=(r[:, None] < R) & (d[None, :] < D), other=0.0).to(tl.float32)
        diff = a[:, None, :] - b[None, :, :]
        acc += tl.sum(diff * diff, axis=2)
    out = tl.sqrt(acc)
    mask = (p[:, None] < P) & (r[None, :] < R)
    tl.store(out_ptr + p[:, None].to(tl.int64) * R + r[None, :],
             out.to(out_ptr.dtype.element_ty), mask=mask)


def run(x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    P, D = x1.shape
    R = x2.shape[0]
    a, b = x1.contiguous(), x2.contiguous()
    out = torch.empty((P, R), device=x1.device, dtype=x1.dtype)
    BLOCK_P, BLOCK_R, BLOCK_D = 16, 16, 16
    grid = (triton.cdiv(P, BLOCK_P), triton.cdiv(R, BLOCK_R))
    _cdist_kernel[grid](a, b, out, P, R, D, a.stride(0), b.stride(0),
                        BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D)
    return out
