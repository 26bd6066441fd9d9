import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_dropout_bwd_kernel(y_ptr, k_ptr, g_ptr, dx_ptr, N, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * N
    # pass 1: the row dot product sum_k d * y in float32
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        y = tl.load(y_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        k = tl.load(k_ptr + base + cols, mask=mask, other=0)
        g = tl.load(g_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(k != 0, g * scale, 0.0) * y
    dot = tl.sum(acc, axis=0)
    # pass 2: y * (d - dot)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        y = tl.load(y_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        k = tl.load(k_ptr + base + cols, mask=mask, other=0)
        g = tl.load(g_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(k != 0, g * scale, 0.0)
        tl.store(dx_ptr + base + cols, (y * (d - dot)).to(dx_ptr.dtype.element_ty), mask=mask)


def run(y: torch.Tensor, keep: torch.Tensor, p: float, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = y.shape
    y, grad_out = y.contiguous(), grad_out.contiguous()
    k = keep.contiguous().view(torch.uint8)  # a view: bool and uint8 share the bytes
    dx = torch.empty((M, N), dtype=y.dtype, device=y.device)
    BLOCK = min(triton.next_power_of_2(N), 4096)
    _softmax_dropout_bwd_kernel[(M,)](y, k, grad_out, dx, N, 1.0 / (1.0 - p), BLOCK=BLOCK,
                                      num_warps=8 if BLOCK >= 2048 else 4)
    return dx
