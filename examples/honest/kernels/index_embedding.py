import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(idx_ptr, w_ptr, out_ptr, T, D, stride_wv, stride_wd,
                      BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    # Program (pid_t, pid_d) copies a [BLOCK_T tokens, BLOCK_D features] tile: one index load
    # per token, then contiguous row segments of the table.
    pid_t = tl.program_id(0)
    pid_d = tl.program_id(1)
    toks = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_t = toks < T
    mask = mask_t[:, None] & (cols[None, :] < D)
    rows = tl.load(idx_ptr + toks, mask=mask_t, other=0).to(tl.int64)
    vals = tl.load(w_ptr + rows[:, None] * stride_wv + cols[None, :] * stride_wd, mask=mask)
    tl.store(out_ptr + toks[:, None].to(tl.int64) * D + cols[None, :], vals, mask=mask)


def run(idx: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    D = weight.shape[1]
    flat_idx = idx.reshape(-1)
    T = flat_idx.numel()
    out = torch.empty(tuple(idx.shape) + (D,), dtype=weight.dtype, device=weight.device)
    BLOCK_T = 16
    BLOCK_D = min(512, triton.next_power_of_2(D))
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(D, BLOCK_D))
    _embedding_kernel[grid](flat_idx, weight, out, T, D, weight.stride(0), weight.stride(1),
                            BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, num_warps=4)
    return out
