import torch
import triton
import triton.language as tl


@triton.jit
def _max_pool1d_bwd_kernel(g_ptr, idx_ptr, out_ptr, L, OL, BLOCK: tl.constexpr):
    # Gather form (no atomics): element l lies in windows o = (l+1)//2 - 1 and (l+1)//2 only;
    # it takes the gradient of each of them whose saved argmax is l.
    row = tl.program_id(0).to(tl.int64)
    l = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    lmask = l < L
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for a in tl.static_range(2):
        o = (l + 1) // 2 - a
        m = lmask & (o >= 0) & (o < OL)
        won = tl.load(idx_ptr + row * OL + o, mask=m, other=-1) == l
        acc += tl.load(g_ptr + row * OL + o, mask=m & won, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * L + l, acc.to(out_ptr.dtype.element_ty), mask=lmask)


def run(x: torch.Tensor, grad_out: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    N, C, L = x.shape
    OL = grad_out.shape[2]
    g = grad_out.contiguous()
    idx = indices.contiguous()
    out = torch.empty((N, C, L), dtype=x.dtype, device=x.device)
    BLOCK = min(triton.next_power_of_2(L), 1024)
    grid = (N * C, triton.cdiv(L, BLOCK))
    _max_pool1d_bwd_kernel[grid](g, idx, out, L, OL, BLOCK=BLOCK, num_warps=4)
    return out
