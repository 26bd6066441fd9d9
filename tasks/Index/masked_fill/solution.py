import torch
import triton
import triton.language as tl


@triton.jit
def _masked_fill_kernel(x_ptr, mask_ptr, out_ptr, R, H, S, value,
                        BLOCK_R: tl.constexpr, BLOCK_S: tl.constexpr):
    # Tile of the output viewed as [R = B * H rows, S]: the mask row is b = row // H.
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    rmask = rows < R
    inb = rmask[:, None] & (cols < S)[None, :]
    b = (rows // H).to(tl.int64)
    m = tl.load(mask_ptr + b[:, None] * S + cols[None, :], mask=inb, other=0) != 0
    offs = rows.to(tl.int64)[:, None] * S + cols[None, :]
    x = tl.load(x_ptr + offs, mask=inb & (m == 0))
    fill = tl.full([BLOCK_R, BLOCK_S], value, tl.float32).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, tl.where(m, fill, x), mask=inb)


def run(x: torch.Tensor, mask: torch.Tensor, value: float) -> torch.Tensor:
    B, H, S = x.shape
    x = x.contiguous()
    mask_u8 = mask.contiguous().view(torch.uint8)
    out = torch.empty((B, H, S), dtype=x.dtype, device=x.device)
    BLOCK_S = min(triton.next_power_of_2(S), 1024)
    BLOCK_R = max(1, 4096 // BLOCK_S)
    grid = (triton.cdiv(B * H, BLOCK_R), triton.cdiv(S, BLOCK_S))
    _masked_fill_kernel[grid](x, mask_u8, out, B * H, H, S, value,
                              BLOCK_R=BLOCK_R, BLOCK_S=BLOCK_S, num_warps=4)
    return out
