import torch
import triton
import triton.language as tl


@triton.jit
def _dw_conv1d_bwd_kernel(x_ptr, w_ptr, g_ptr, dx_ptr, pdw_ptr, C, L, BLOCK: tl.constexpr):
    # One program per (n, c) row: grad_x of the row, and the row's three grad_w partial sums
    # (written to pdw[n, c, :], summed over n in a fixed order by the second kernel).
    row = tl.program_id(0)
    c = row % C
    base = row.to(tl.int64) * L
    w0 = tl.load(w_ptr + c * 3 + 0).to(tl.float32)
    w1 = tl.load(w_ptr + c * 3 + 1).to(tl.float32)
    w2 = tl.load(w_ptr + c * 3 + 2).to(tl.float32)
    a0 = tl.zeros([BLOCK], dtype=tl.float32)
    a1 = tl.zeros([BLOCK], dtype=tl.float32)
    a2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        m = start + tl.arange(0, BLOCK)
        mm = m < L
        # grad_x[m] = w0 g[m + 2] + w1 g[m] + w2 g[m - 2]
        gp = tl.load(g_ptr + base + m + 2, mask=(m + 2) < L, other=0.0).to(tl.float32)
        g0 = tl.load(g_ptr + base + m, mask=mm, other=0.0).to(tl.float32)
        gm = tl.load(g_ptr + base + m - 2, mask=mm & (m >= 2), other=0.0).to(tl.float32)
        dx = w0 * gp + w1 * g0 + w2 * gm
        tl.store(dx_ptr + base + m, dx.to(dx_ptr.dtype.element_ty), mask=mm)
        # grad_w[j] += g[l] * x[l + 2j - 2]
        xm = tl.load(x_ptr + base + m - 2, mask=mm & (m >= 2), other=0.0).to(tl.float32)
        x0 = tl.load(x_ptr + base + m, mask=mm, other=0.0).to(tl.float32)
        xp = tl.load(x_ptr + base + m + 2, mask=(m + 2) < L, other=0.0).to(tl.float32)
        a0 += g0 * xm
        a1 += g0 * x0
        a2 += g0 * xp
    tl.store(pdw_ptr + row * 3 + 0, tl.sum(a0, axis=0))
    tl.store(pdw_ptr + row * 3 + 1, tl.sum(a1, axis=0))
    tl.store(pdw_ptr + row * 3 + 2, tl.sum(a2, axis=0))


@triton.jit
def _sum_over_n_kernel(pdw_ptr, dw_ptr, N, C3, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < C3
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for n in range(0, N):  # fixed order: deterministic
        acc += tl.load(pdw_ptr + n * C3 + offs, mask=mask, other=0.0)
    tl.store(dw_ptr + offs, acc.to(dw_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, w: torch.Tensor, grad_out: torch.Tensor):
    N, C, L = x.shape
    x = x.contiguous()
    w = w.contiguous()
    g = grad_out.contiguous()
    dev = x.device
    dx = torch.empty((N, C, L), dtype=x.dtype, device=dev)
    pdw = torch.empty((N, C, 3), dtype=torch.float32, device=dev)
    dw = torch.empty((C, 1, 3), dtype=x.dtype, device=dev)
    BLOCK = min(triton.next_power_of_2(L), 2048)
    _dw_conv1d_bwd_kernel[(N * C,)](x, w, g, dx, pdw, C, L, BLOCK=BLOCK, num_warps=4)
    _sum_over_n_kernel[(triton.cdiv(3 * C, 256),)](pdw, dw, N, 3 * C, BLOCK=256, num_warps=4)
    return dx, dw
