import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(y):
    f = tl.floor(y)
    d = y - f
    f_is_odd = (f - 2.0 * tl.floor(f * 0.5)) != 0.0
    up = (d > 0.5) | ((d == 0.5) & f_is_odd)
    return tl.where(up, f + 1.0, f)


@triton.jit
def _smooth_row(x_row, smooth_ptr, cols, mask):
    x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
    return x * tl.load(smooth_ptr + cols, mask=mask, other=0.0)


@triton.jit
def _store_q(q_row, cols, mask, y, scale):
    q = tl.minimum(tl.maximum(_round_half_even(y / scale), -127.0), 127.0)
    tl.store(q_row + cols, q.to(tl.int8), mask=mask)


@triton.jit
def _smoothquant_kernel(x_ptr, smooth_ptr, q_ptr, scale_ptr, K,
                        BLOCK: tl.constexpr, SINGLE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * K
    q_row = q_ptr + row * K
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK)
        mask = cols < K
        y = _smooth_row(x_row, smooth_ptr, cols, mask)
        scale = tl.maximum(tl.max(tl.abs(y), axis=0), 1e-10) / 127.0
        tl.store(scale_ptr + row, scale)
        _store_q(q_row, cols, mask, y, scale)
    else:
        amax = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, K, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            amax = tl.maximum(amax, tl.abs(_smooth_row(x_row, smooth_ptr, cols, cols < K)))
        scale = tl.maximum(tl.max(amax, axis=0), 1e-10) / 127.0
        tl.store(scale_ptr + row, scale)
        for start in range(0, K, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < K
            _store_q(q_row, cols, mask, _smooth_row(x_row, smooth_ptr, cols, mask), scale)


def run(x: torch.Tensor, smooth: torch.Tensor):
    M, K = x.shape
    x, smooth = x.contiguous(), smooth.contiguous()
    q = torch.empty((M, K), dtype=torch.int8, device=x.device)
    scale = torch.empty((M, 1), dtype=torch.float32, device=x.device)
    MAX_BLOCK = 4096
    BLOCK = min(triton.next_power_of_2(K), MAX_BLOCK)
    _smoothquant_kernel[(M,)](x, smooth, q, scale, K, BLOCK=BLOCK, SINGLE_PASS=K <= MAX_BLOCK,
                              num_warps=4 if BLOCK <= 1024 else 8)
    return q, scale
