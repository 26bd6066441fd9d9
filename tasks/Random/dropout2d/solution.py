import torch
import triton
import triton.language as tl


@triton.jit
def _dropout2d_kernel(x_ptr, out_ptr, n_ch, C, L, sx_b, sx_c, sx_l, p, scale, seed,
                      BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    # BLOCK_C channels a program (a tile of channels x columns: short channels stay cheap),
    # one Philox uniform per channel keyed on (seed, b * C + c) decides the whole channel
    ch = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    ch_ok = ch < n_ch
    b = ch // C
    c = ch % C
    keep = tl.rand(seed, ch) >= p
    x_rows = x_ptr + b.to(tl.int64) * sx_b + c.to(tl.int64) * sx_c
    out_rows = out_ptr + ch.to(tl.int64) * L
    cols = tl.arange(0, BLOCK_L)
    for start in range(0, L, BLOCK_L):
        offs = start + cols
        mask = ch_ok[:, None] & (offs < L)[None, :]
        x = tl.load(x_rows[:, None] + offs.to(tl.int64)[None, :] * sx_l, mask=mask,
                    other=0.0).to(tl.float32)
        y = tl.where(keep[:, None], x * scale, 0.0)
        tl.store(out_rows[:, None] + offs[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    B, C, L = x.shape
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    n_ch = B * C
    if n_ch == 0 or L == 0:
        return out
    BLOCK_L = min(triton.next_power_of_2(L), 1024)
    BLOCK_C = max(1, min(triton.next_power_of_2(n_ch), 4096 // BLOCK_L))
    grid = (triton.cdiv(n_ch, BLOCK_C),)
    _dropout2d_kernel[grid](x, out, n_ch, C, L, x.stride(0), x.stride(1), x.stride(2), p,
                            1.0 / (1.0 - p), seed, BLOCK_C=BLOCK_C, BLOCK_L=BLOCK_L,
                            num_warps=4)
    return out
