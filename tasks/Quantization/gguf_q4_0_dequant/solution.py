import torch
import triton
import triton.language as tl


@triton.jit
def _q4_0_dequant_kernel(blocks_ptr, out_ptr, n_blocks, BLOCKS: tl.constexpr):
    # one program: BLOCKS Q4_0 blocks of one row, a [BLOCKS, 16] tile of their 16 nibble bytes
    row = tl.program_id(0).to(tl.int64)
    blk = tl.program_id(1) * BLOCKS + tl.arange(0, BLOCKS)
    ok = blk < n_blocks
    base = blocks_ptr + row * n_blocks * 18 + blk * 18
    lo = tl.load(base, mask=ok, other=0).to(tl.int32)
    hi = tl.load(base + 1, mask=ok, other=0).to(tl.int32)
    d = (lo | (hi << 8)).to(tl.int16).to(tl.float16, bitcast=True).to(tl.float32)
    j = tl.arange(0, 16)
    q = tl.load(base[:, None] + 2 + j[None, :], mask=ok[:, None], other=0).to(tl.int32)
    first = ((q & 0xF) - 8).to(tl.float32) * d[:, None]
    second = ((q >> 4) - 8).to(tl.float32) * d[:, None]
    out = out_ptr + row * n_blocks * 32 + blk[:, None] * 32 + j[None, :]
    tl.store(out, first, mask=ok[:, None])
    tl.store(out + 16, second, mask=ok[:, None])


def run(blocks: torch.Tensor) -> torch.Tensor:
    M, nbytes = blocks.shape
    n_blocks = nbytes // 18
    out = torch.empty((M, n_blocks * 32), dtype=torch.float32, device=blocks.device)
    BLOCKS = 32
    grid = (M, triton.cdiv(n_blocks, BLOCKS))
    _q4_0_dequant_kernel[grid](blocks, out, n_blocks, BLOCKS=BLOCKS, num_warps=4)
    return out
