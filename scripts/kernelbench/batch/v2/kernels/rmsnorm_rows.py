import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, out_ptr, cols, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    squares = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0)
        squares += x * x
    scale = 1.0 / tl.sqrt(tl.sum(squares, 0) / cols + eps)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0)
        w = tl.load(w_ptr + offs, mask=offs < cols, other=0.0)
        tl.store(out_ptr + base + offs, x * scale * w, mask=offs < cols)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        block = min(4096, triton.next_power_of_2(cols))
        _rms_norm_kernel[(rows,)](x, self.weight, out, cols, self.eps, BLOCK=block,
                                  num_warps=8)
        return out
