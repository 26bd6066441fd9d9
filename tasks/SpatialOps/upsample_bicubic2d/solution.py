import torch
import triton
import triton.language as tl

A = tl.constexpr(-0.75)  # compiled Triton refuses an annotated plain global


@triton.jit
def _c1(s):
    return ((A + 2.0) * s - (A + 3.0)) * s * s + 1.0


@triton.jit
def _c2(s):
    return ((A * s - 5.0 * A) * s + 8.0 * A) * s - 4.0 * A


@triton.jit
def _upsample_bicubic2x_kernel(x_ptr, out_ptr, R, C, H, W,
                               stride_n, stride_c, stride_h, stride_w,
                               BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr):
    # A [BLOCK_R, BLOCK_W] tile of the output viewed as [R = N*C*2H, 2W]: 4 source rows with
    # their weights per output row, 4 source columns per output column, 16 taps.
    OH = 2 * H
    OW = 2 * W
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    row_mask = rows < R
    col_mask = ow < OW
    oh = rows % OH
    nc = rows // OH
    c = nc % C
    n = nc // C
    src_h = oh.to(tl.float32) * 0.5 - 0.25
    fh = tl.floor(src_h)
    th = src_h - fh
    h0 = fh.to(tl.int32)
    src_w = ow.to(tl.float32) * 0.5 - 0.25
    fw = tl.floor(src_w)
    tw = src_w - fw
    w0 = fw.to(tl.int32)
    base = n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c
    mask = row_mask[:, None] & col_mask[None, :]
    acc = tl.zeros([BLOCK_R, BLOCK_W], dtype=tl.float32)
    for k in tl.static_range(4):
        if k == 0:
            wy = _c2(th + 1.0)
        elif k == 1:
            wy = _c1(th)
        elif k == 2:
            wy = _c1(1.0 - th)
        else:
            wy = _c2(2.0 - th)
        ih = tl.minimum(tl.maximum(h0 - 1 + k, 0), H - 1)
        roff = base + ih.to(tl.int64) * stride_h
        row_acc = tl.zeros([BLOCK_R, BLOCK_W], dtype=tl.float32)
        for l in tl.static_range(4):
            if l == 0:
                wx = _c2(tw + 1.0)
            elif l == 1:
                wx = _c1(tw)
            elif l == 2:
                wx = _c1(1.0 - tw)
            else:
                wx = _c2(2.0 - tw)
            iw = tl.minimum(tl.maximum(w0 - 1 + l, 0), W - 1)
            v = tl.load(x_ptr + roff[:, None] + (iw.to(tl.int64) * stride_w)[None, :], mask=mask,
                        other=0.0).to(tl.float32)
            row_acc += wx[None, :] * v
        acc += wy[:, None] * row_acc
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * OW + ow[None, :],
             acc.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    out = torch.empty((N, C, 2 * H, 2 * W), dtype=x.dtype, device=x.device)
    R, OW = N * C * 2 * H, 2 * W
    BLOCK_W = min(triton.next_power_of_2(OW), 128)
    BLOCK_R = max(1, 1024 // BLOCK_W)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(OW, BLOCK_W))
    _upsample_bicubic2x_kernel[grid](x, out, R, C, H, W,
                                     x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                     BLOCK_R=BLOCK_R, BLOCK_W=BLOCK_W, num_warps=4)
    return out
