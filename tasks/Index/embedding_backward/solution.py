import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_bwd_kernel(idx_ptr, g_ptr, acc_ptr, T, D,
                          BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    tmask = toks < T
    mask = tmask[:, None] & (cols < D)[None, :]
    rows = tl.load(idx_ptr + toks, mask=tmask, other=0)
    g = tl.load(g_ptr + toks.to(tl.int64)[:, None] * D + cols[None, :], mask=mask,
                other=0.0).to(tl.float32)
    tl.atomic_add(acc_ptr + rows[:, None] * D + cols[None, :], g, mask=mask)


@triton.jit
def _cast_kernel(acc_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(acc_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=mask)


def run(idx: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    V, D = weight.shape
    flat_idx = idx.reshape(-1).contiguous()
    T = flat_idx.shape[0]
    g = grad_out.reshape(T, D).contiguous()
    acc = torch.zeros((V, D), dtype=torch.float32, device=weight.device)
    BLOCK_D = min(triton.next_power_of_2(D), 256)
    BLOCK_T = max(1, 2048 // BLOCK_D)
    _embedding_bwd_kernel[(triton.cdiv(T, BLOCK_T), triton.cdiv(D, BLOCK_D))](
        flat_idx, g, acc, T, D, BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, num_warps=4)
    if weight.dtype == torch.float32:
        return acc
    out = torch.empty((V, D), dtype=weight.dtype, device=weight.device)
    n = V * D
    _cast_kernel[(triton.cdiv(n, 4096),)](acc, out, n, BLOCK=4096, num_warps=4)
    return out
