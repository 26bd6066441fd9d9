import torch
import triton
import triton.language as tl


@triton.jit
def _dw_dgrad_kernel(g_ptr, w_ptr, dx_ptr, C, H, W, BLOCK_H: tl.constexpr,
                     BLOCK_W: tl.constexpr):
    # dx: a depthwise 3x3 "convolution" of grad_out with the flipped filter, one program per
    # (spatial tile, image-channel plane); all tensors contiguous NCHW.
    pid_t = tl.program_id(0)
    nc = tl.program_id(1)
    c = nc % C
    tiles_w = tl.cdiv(W, BLOCK_W)
    h = (pid_t // tiles_w) * BLOCK_H + tl.arange(0, BLOCK_H)
    w_ = (pid_t % tiles_w) * BLOCK_W + tl.arange(0, BLOCK_W)
    plane = nc.to(tl.int64) * H * W
    acc = tl.zeros((BLOCK_H, BLOCK_W), dtype=tl.float32)
    for r in tl.static_range(3):
        for s in tl.static_range(3):
            oh = h + 1 - r
            ow = w_ + 1 - s
            m = ((oh >= 0) & (oh < H))[:, None] & ((ow >= 0) & (ow < W))[None, :]
            gv = tl.load(g_ptr + plane + oh[:, None] * W + ow[None, :], mask=m, other=0.0)
            acc += gv.to(tl.float32) * tl.load(w_ptr + c * 9 + r * 3 + s).to(tl.float32)
    tl.store(dx_ptr + plane + h[:, None] * W + w_[None, :], acc.to(dx_ptr.dtype.element_ty),
             mask=(h < H)[:, None] & (w_ < W)[None, :])


@triton.jit
def _dw_wgrad_partial_kernel(x_ptr, g_ptr, ws_ptr, NB, C, H, W, Q_PER_SPLIT,
                             BLOCK: tl.constexpr):
    # Program (channel c, split): the 9 tap sums over pixels q = (n, h, w) of its split,
    # gathered as a [16 taps (9 used), BLOCK pixels] tile so grad_out is loaded once per chunk.
    c = tl.program_id(0)
    split = tl.program_id(1)
    HW = H * W
    Q = NB * HW
    q_start = split * Q_PER_SPLIT
    q_end = tl.minimum(q_start + Q_PER_SPLIT, Q)
    taps = tl.arange(0, 16)
    dr = taps // 3 - 1
    ds = taps % 3 - 1
    tap_ok = taps < 9
    acc = tl.zeros((16, BLOCK), dtype=tl.float32)
    for q0 in range(q_start, q_end, BLOCK):
        qs = q0 + tl.arange(0, BLOCK)
        mask_q = qs < q_end
        n = qs // HW
        hw = qs % HW
        h = hw // W
        w_ = hw % W
        plane = (n.to(tl.int64) * C + c) * HW
        gv = tl.load(g_ptr + plane + hw, mask=mask_q, other=0.0).to(tl.float32)
        ih = h[None, :] + dr[:, None]
        iw = w_[None, :] + ds[:, None]
        m = (tap_ok[:, None] & mask_q[None, :] & (ih >= 0) & (ih < H) & (iw >= 0)
             & (iw < W))
        xv = tl.load(x_ptr + plane[None, :] + ih * W + iw, mask=m, other=0.0).to(tl.float32)
        acc += xv * gv[None, :]
    tl.store(ws_ptr + (split.to(tl.int64) * C + c) * 9 + taps, tl.sum(acc, axis=1), mask=tap_ok)


@triton.jit
def _sum_splits_kernel(ws_ptr, out_ptr, NUMEL, SPLITS, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NUMEL
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(ws_ptr + s * NUMEL + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, w: torch.Tensor, grad_out: torch.Tensor):
    NB, C, H, W = x.shape
    x, w, g = x.contiguous(), w.contiguous(), grad_out.contiguous()
    dx = torch.empty((NB, C, H, W), dtype=x.dtype, device=x.device)
    dw = torch.empty((C, 1, 3, 3), dtype=x.dtype, device=x.device)
    BLOCK_W = min(64, triton.next_power_of_2(W))
    BLOCK_H = min(16, triton.next_power_of_2(H))
    grid = (triton.cdiv(H, BLOCK_H) * triton.cdiv(W, BLOCK_W), NB * C)
    _dw_dgrad_kernel[grid](g, w, dx, C, H, W, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W, num_warps=4)
    BLOCK = 256
    Q = NB * H * W
    splits = max(1, min(triton.cdiv(2048, C), triton.cdiv(Q, 4 * BLOCK)))
    q_per_split = triton.cdiv(triton.cdiv(Q, splits), BLOCK) * BLOCK
    splits = triton.cdiv(Q, q_per_split)
    ws = torch.empty((splits, C, 9), dtype=torch.float32, device=x.device)
    _dw_wgrad_partial_kernel[(C, splits)](x, g, ws, NB, C, H, W, q_per_split, BLOCK=BLOCK,
                                          num_warps=4)
    _sum_splits_kernel[(triton.cdiv(C * 9, 1024),)](ws, dw, C * 9, splits, BLOCK=1024)
    return dx, dw
