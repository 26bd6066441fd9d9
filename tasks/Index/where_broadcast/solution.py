import torch
import triton
import triton.language as tl


@triton.jit
def _where_kernel(cond_ptr, a_ptr, b_ptr, out_ptr, M, N, stride_am, stride_an,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    inb = (rows < M)[:, None] & cmask[None, :]
    r64 = rows.to(tl.int64)[:, None]
    offs = r64 * N + cols[None, :]
    c = tl.load(cond_ptr + offs, mask=inb, other=0) != 0
    a = tl.load(a_ptr + r64 * stride_am + cols[None, :].to(tl.int64) * stride_an, mask=inb & c)
    b = tl.load(b_ptr + cols, mask=cmask)
    tl.store(out_ptr + offs, tl.where(c, a, b[None, :]), mask=inb)


def run(cond: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, N = a.shape
    cond_u8 = cond.contiguous().view(torch.uint8)
    b = b.contiguous()
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    BLOCK_N = min(triton.next_power_of_2(N), 512)
    BLOCK_M = max(1, 4096 // BLOCK_N)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _where_kernel[grid](cond_u8, a, b, out, M, N, a.stride(0), a.stride(1),
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
