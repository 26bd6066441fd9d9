import torch
import triton
import triton.language as tl


@triton.jit
def _jagged_jagged_bmm_kernel(x_ptr, y_ptr, off_ptr, out_ptr, M, N,
                              stride_xt, stride_xm, stride_yt, stride_yn,
                              stride_ob, stride_om, stride_on,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_T: tl.constexpr):
    # One program per (output tile, segment): stream the segment's rows in BLOCK_T chunks,
    # x^T chunk [BLOCK_M, BLOCK_T] times y chunk [BLOCK_T, BLOCK_N].
    pid = tl.program_id(0)
    seg = tl.program_id(1)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    start = tl.load(off_ptr + seg)
    end = tl.load(off_ptr + seg + 1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_t = tl.arange(0, BLOCK_T)
    mask_m = offs_m < M
    mask_n = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for t0 in range(start, end, BLOCK_T):
        ts = t0 + offs_t
        mask_t = ts < end
        xt = tl.load(x_ptr + ts[None, :].to(tl.int64) * stride_xt + offs_m[:, None] * stride_xm,
                     mask=mask_m[:, None] & mask_t[None, :], other=0.0)
        yt = tl.load(y_ptr + ts[:, None].to(tl.int64) * stride_yt + offs_n[None, :] * stride_yn,
                     mask=mask_t[:, None] & mask_n[None, :], other=0.0)
        acc = tl.dot(xt, yt, acc, input_precision="ieee")
    o_ptrs = (out_ptr + seg.to(tl.int64) * stride_ob + offs_m[:, None] * stride_om
              + offs_n[None, :] * stride_on)
    tl.store(o_ptrs, acc.to(out_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x: torch.Tensor, y: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, M = x.shape
    N = y.shape[1]
    B = offsets.shape[0] - 1
    out = torch.empty((B, M, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_T = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), B)
    _jagged_jagged_bmm_kernel[grid](x, y, offsets, out, M, N,
                                    x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                    out.stride(0), out.stride(1), out.stride(2),
                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T,
                                    num_warps=4, num_stages=3)
    return out
