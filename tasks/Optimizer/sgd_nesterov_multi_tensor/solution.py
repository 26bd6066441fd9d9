import triton
import triton.language as tl


@triton.jit
def _sgd_multi_tensor_kernel(p_ptr, g_ptr, buf_ptr, offsets_ptr, lr_ptr, wd_ptr, total,
                             num_tensors, momentum, SEARCH_STEPS: tl.constexpr,
                             BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    # The tensor of each element: the largest k with offsets[k] <= offs, by a binary search
    # over the K + 1 offsets (a block may straddle several small tensors).
    lo = tl.zeros([BLOCK], dtype=tl.int32)
    hi = tl.zeros([BLOCK], dtype=tl.int32) + num_tensors
    for _ in tl.static_range(SEARCH_STEPS):
        mid = (lo + hi) // 2
        start = tl.load(offsets_ptr + mid, mask=mask, other=0)
        left = start <= offs
        lo = tl.where(left, mid, lo)
        hi = tl.where(left, hi, mid)
    lr = tl.load(lr_ptr + lo, mask=mask, other=0.0)
    wd = tl.load(wd_ptr + lo, mask=mask, other=0.0)
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    buf = tl.load(buf_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = g + wd * p
    buf = momentum * buf + d
    p = p - lr * (d + momentum * buf)
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(buf_ptr + offs, buf.to(buf_ptr.dtype.element_ty), mask=mask)


def run(p, g, buf, offsets, lr, weight_decay):
    total, num_tensors = p.numel(), offsets.numel() - 1
    # ceil(log2(K)) halvings take [0, K) down to one tensor; K is a shape, not a value read
    steps = max(1, (num_tensors - 1).bit_length())
    BLOCK = 1024
    # contiguous buffers (the task promises it), written through their own pointers
    _sgd_multi_tensor_kernel[(triton.cdiv(total, BLOCK),)](
        p, g, buf, offsets, lr, weight_decay, total, num_tensors, 0.9, SEARCH_STEPS=steps,
        BLOCK=BLOCK, num_warps=4)
