import torch
import triton
import triton.language as tl


@triton.jit
def _segment_sum_kernel(src_ptr, off_ptr, out_ptr, D, BLOCK_T: tl.constexpr,
                        BLOCK_D: tl.constexpr):
    # One program per (segment, block of columns): rows offsets[b] .. offsets[b+1]-1, in tiles.
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    cmask = cols < D
    start = tl.load(off_ptr + b)
    end = tl.load(off_ptr + b + 1)
    acc = tl.zeros([BLOCK_T, BLOCK_D], dtype=tl.float32)
    for t0 in range(start, end, BLOCK_T):
        rows = t0 + tl.arange(0, BLOCK_T)
        m = (rows < end)[:, None] & cmask[None, :]
        acc += tl.load(src_ptr + rows[:, None] * D + cols[None, :], mask=m,
                       other=0.0).to(tl.float32)
    out = tl.sum(acc, axis=0)
    tl.store(out_ptr + b.to(tl.int64) * D + cols, out.to(out_ptr.dtype.element_ty), mask=cmask)


def run(src: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, D = src.shape
    B = offsets.shape[0] - 1
    src = src.contiguous()
    off = offsets.contiguous()
    out = torch.empty((B, D), dtype=src.dtype, device=src.device)
    BLOCK_D = min(triton.next_power_of_2(D), 128)
    BLOCK_T = 32
    grid = (B, triton.cdiv(D, BLOCK_D))
    _segment_sum_kernel[grid](src, off, out, D, BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, num_warps=4)
    return out
