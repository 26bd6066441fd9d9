import torch
import triton
import triton.language as tl


@triton.jit
def _bn_bwd_kernel(x_ptr, w_ptr, mean_ptr, invstd_ptr, dy_ptr, dx_ptr, dw_ptr, db_ptr,
                   N, C, HW, BLOCK: tl.constexpr):
    # one program per channel: its N planes of HW elements, summed in a fixed order
    c = tl.program_id(0)
    mean = tl.load(mean_ptr + c)
    invstd = tl.load(invstd_ptr + c)
    sum_g = tl.zeros([BLOCK], dtype=tl.float32)
    sum_gx = tl.zeros([BLOCK], dtype=tl.float32)
    for n in range(0, N):
        base = (n * C + c).to(tl.int64) * HW
        for start in range(0, HW, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < HW
            x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            g = tl.load(dy_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            sum_g += g
            sum_gx += tl.where(mask, g * (x - mean) * invstd, 0.0)
    gb = tl.sum(sum_g, axis=0)
    gw = tl.sum(sum_gx, axis=0)
    tl.store(db_ptr + c, gb)
    tl.store(dw_ptr + c, gw)
    count = N * HW
    mean_g = gb / count
    mean_gx = gw / count
    scale = tl.load(w_ptr + c) * invstd
    for n in range(0, N):
        base = (n * C + c).to(tl.int64) * HW
        for start in range(0, HW, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < HW
            x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            g = tl.load(dy_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            xhat = (x - mean) * invstd
            dx = scale * (g - mean_g - xhat * mean_gx)
            tl.store(dx_ptr + base + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def run(x, weight, mean, invstd, grad_out):
    N, C, H, W = x.shape
    x, grad_out = x.contiguous(), grad_out.contiguous()
    weight, mean, invstd = weight.contiguous(), mean.contiguous(), invstd.contiguous()
    dx = torch.empty_like(x)
    dw = torch.empty((C,), dtype=torch.float32, device=x.device)
    db = torch.empty((C,), dtype=torch.float32, device=x.device)
    HW = H * W
    BLOCK = min(triton.next_power_of_2(HW), 1024)
    _bn_bwd_kernel[(C,)](x, weight, mean, invstd, grad_out, dx, dw, db, N, C, HW, BLOCK=BLOCK,
                         num_warps=4)
    return dx, dw, db
