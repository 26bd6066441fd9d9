import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(mask_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = tl.load(mask_ptr + offs, mask=offs < n, other=0).to(tl.int32)
    tl.store(counts_ptr + tl.program_id(0), tl.sum(m, axis=0))


@triton.jit
def _scan_kernel(counts_ptr, offsets_ptr, total_ptr, n_blocks, SCAN: tl.constexpr):
    # One program: exclusive prefix sum of the per-block counts, chunk by chunk.
    carry = tl.zeros([], dtype=tl.int64)
    for start in range(0, n_blocks, SCAN):
        i = start + tl.arange(0, SCAN)
        c = tl.load(counts_ptr + i, mask=i < n_blocks, other=0).to(tl.int64)
        incl = tl.cumsum(c, axis=0)
        tl.store(offsets_ptr + i, incl - c + carry, mask=i < n_blocks)
        carry += tl.sum(c, axis=0)
    tl.store(total_ptr, carry)


@triton.jit
def _write_kernel(x_ptr, mask_ptr, offsets_ptr, total_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    m = tl.load(mask_ptr + offs, mask=inb, other=0).to(tl.int32)
    local = tl.cumsum(m, axis=0) - m  # exclusive rank inside the block
    dest = tl.load(offsets_ptr + pid) + local.to(tl.int64)
    sel = inb & (m != 0)
    x = tl.load(x_ptr + offs, mask=sel)
    tl.store(out_ptr + dest, x, mask=sel)
    # the tail past the selected elements is zero; each block clears its own index range
    total = tl.load(total_ptr)
    zero = tl.zeros([BLOCK], dtype=out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, zero, mask=inb & (offs >= total))


def run(x: torch.Tensor, mask: torch.Tensor):
    x = x.contiguous()
    m = mask.contiguous().view(torch.uint8)
    n = x.numel()
    out = torch.empty((n,), dtype=x.dtype, device=x.device)
    count = torch.empty((1,), dtype=torch.int64, device=x.device)
    BLOCK = 2048
    n_blocks = triton.cdiv(n, BLOCK)
    counts = torch.empty((n_blocks,), dtype=torch.int32, device=x.device)
    offsets = torch.empty((n_blocks,), dtype=torch.int64, device=x.device)
    _count_kernel[(n_blocks,)](m, counts, n, BLOCK=BLOCK, num_warps=4)
    _scan_kernel[(1,)](counts, offsets, count, n_blocks, SCAN=1024, num_warps=4)
    _write_kernel[(n_blocks,)](x, m, offsets, count, out, n, BLOCK=BLOCK, num_warps=4)
    return out, count
