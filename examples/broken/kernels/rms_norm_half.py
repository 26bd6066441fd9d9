# Partial computation: the grid covers only the first half of the rows (threat 5); the rest of
# the output is whatever the allocator handed out — kgb pre-poisons it with NaN.
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rms = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + 1e-6)
    tl.store(out_ptr + row * stride + cols, (x * rms * w).to(out_ptr.dtype.element_ty), mask=mask)


def run(x, weight):
    x = x.contiguous()
    m, n = x.shape
    out = torch.empty_like(x)
    _rms_norm_kernel[(max(1, m // 2),)](x, weight, out, n, x.stride(0),
                                         BLOCK=triton.next_power_of_2(n))
    return out
