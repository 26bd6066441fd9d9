import torch
import triton
import triton.language as tl


@triton.jit
def _grouped_conv2d_dx_kernel(g_ptr, w_ptr, dx_ptr, C, H, W, K, OH, OW, CG, KG,
                              BLOCK: tl.constexpr):
    # One program per (n, c, block of H*W positions): gather over the group's output channels
    # and the 3x3 taps whose stride-2 source position is an integer inside the output.
    nc = tl.program_id(0)
    n = nc // C
    c = nc % C
    grp = c // CG
    ci = c % CG
    p = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    pmask = p < H * W
    h = p // W
    x = p % W
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for kk in range(0, KG):
        k = grp * KG + kk
        gbase = (n.to(tl.int64) * K + k) * OH * OW
        for kh in tl.static_range(3):
            th = h + 1 - kh
            oh = th // 2
            hok = (th >= 0) & (th % 2 == 0) & (oh < OH)
            for kw in tl.static_range(3):
                tw = x + 1 - kw
                ow = tw // 2
                ok = pmask & hok & (tw >= 0) & (tw % 2 == 0) & (ow < OW)
                wv = tl.load(w_ptr + ((k * CG + ci) * 3 + kh) * 3 + kw).to(tl.float32)
                gv = tl.load(g_ptr + gbase + oh * OW + ow, mask=ok, other=0.0).to(tl.float32)
                acc += gv * wv
    tl.store(dx_ptr + nc.to(tl.int64) * H * W + p, acc.to(dx_ptr.dtype.element_ty), mask=pmask)


def run(x: torch.Tensor, w: torch.Tensor, grad_out: torch.Tensor, groups: int) -> torch.Tensor:
    N, C, H, W = x.shape
    K = w.shape[0]
    OH, OW = grad_out.shape[2], grad_out.shape[3]
    w = w.contiguous()
    g = grad_out.contiguous()
    dx = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    BLOCK = min(triton.next_power_of_2(H * W), 1024)
    grid = (N * C, triton.cdiv(H * W, BLOCK))
    _grouped_conv2d_dx_kernel[grid](g, w, dx, C, H, W, K, OH, OW, C // groups, K // groups,
                                    BLOCK=BLOCK, num_warps=4)
    return dx
