import torch
import triton
import triton.language as tl


@triton.jit
def _batched_dot_kernel(x_ptr, y_ptr, out_ptr, B, N, stride_xb, stride_xn, stride_yb,
                        BLOCK_B: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    mask_b = rows < B
    acc = tl.zeros((BLOCK_B, BLOCK_N), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask = mask_b[:, None] & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * stride_xb + cols[None, :] * stride_xn,
                    mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + rows[:, None].to(tl.int64) * stride_yb + cols[None, :],
                    mask=mask, other=0.0).to(tl.float32)
        acc += x * y
    tl.store(out_ptr + rows, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=mask_b)


def run(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    B, N = x.shape
    y = y.contiguous()
    out = torch.empty((B,), dtype=x.dtype, device=x.device)
    BLOCK_N = min(512, triton.next_power_of_2(N))
    BLOCK_B = max(1, min(16, 4096 // BLOCK_N))
    _batched_dot_kernel[(triton.cdiv(B, BLOCK_B),)](x, y, out, B, N, x.stride(0), x.stride(1),
                                                     y.stride(0), BLOCK_B=BLOCK_B,
                                                     BLOCK_N=BLOCK_N, num_warps=4)
    return out
