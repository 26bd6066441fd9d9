import torch
import triton
import triton.language as tl


@triton.jit
def _gn_bwd_kernel(x_ptr, w_ptr, dy_ptr, dx_ptr, C, HW, G, eps, BLOCK: tl.constexpr):
    # One program per (sample, group): four passes over the contiguous span of the group.
    pid = tl.program_id(0)
    g = pid % G
    cg = C // G
    L = cg * HW
    base = pid.to(tl.int64) * L
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < L, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / L
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < L
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        xc = tl.where(mask, x - mean, 0.0)
        acc += xc * xc
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / L + eps)
    a1 = tl.zeros([BLOCK], dtype=tl.float32)
    a2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < L
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + g * cg + offs // HW, mask=mask, other=0.0).to(tl.float32)
        gw = dy * w
        a1 += gw * tl.where(mask, (x - mean) * rstd, 0.0)
        a2 += gw
    c1 = tl.sum(a1, axis=0) / L
    c2 = tl.sum(a2, axis=0) / L
    for start in range(0, L, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < L
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + g * cg + offs // HW, mask=mask, other=0.0).to(tl.float32)
        dx = rstd * (dy * w - c2 - (x - mean) * rstd * c1)
        tl.store(dx_ptr + base + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor, num_groups: int):
    N, C, H, W = x.shape
    x = x.contiguous()
    weight = weight.contiguous()
    grad_out = grad_out.contiguous()
    dx = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    L = (C // num_groups) * H * W
    BLOCK = min(triton.next_power_of_2(L), 4096)
    _gn_bwd_kernel[(N * num_groups,)](x, weight, grad_out, dx, C, H * W, num_groups, 1e-5,
                                      BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)
    return dx
