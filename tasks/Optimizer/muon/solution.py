import torch
import triton
import triton.language as tl


@triton.jit
def _momentum_kernel(g_ptr, buf_ptr, u_ptr, partial_ptr, rows, cols, beta, TRANSPOSE: tl.constexpr,
                     BLOCK: tl.constexpr):
    # buf := lerp(buf, g, 1 - beta) in place; u = lerp(g, buf_new, beta) in float32, stored
    # transposed for a tall matrix (the iteration runs on the wide side); partial sums of u^2.
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < rows * cols
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    buf = tl.load(buf_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    buf = buf + (1.0 - beta) * (g - buf)
    u = g + beta * (buf - g)
    tl.store(buf_ptr + offs, buf.to(buf_ptr.dtype.element_ty), mask=mask)
    if TRANSPOSE:
        r = offs // cols
        c = offs % cols
        dst = c * rows + r
    else:
        dst = offs
    tl.store(u_ptr + dst, u, mask=mask)
    tl.store(partial_ptr + pid, tl.sum(u * u, axis=0))


@triton.jit
def _inv_norm_kernel(partial_ptr, out_ptr, num_partials, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, num_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < num_partials, other=0.0)
    tl.store(out_ptr, 1.0 / (tl.sqrt(tl.sum(acc, axis=0)) + 1e-7))


@triton.jit
def _scale_kernel(x_ptr, inv_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(x_ptr + offs, x * tl.load(inv_ptr), mask=mask)


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, out_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, alpha, beta,
               HAS_C: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # out = alpha * (A @ B) + beta * C, float32 with IEEE products; C and out are [M, N]
    # row-major, A and B are read through strides (B = X^T is X with its strides swapped).
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    out = alpha * acc
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    if HAS_C:
        out += beta * tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=cmask, other=0.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], out, mask=cmask)


@triton.jit
def _apply_kernel(p_ptr, x_ptr, rows, cols, decay, step, TRANSPOSE: tl.constexpr,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < rows * cols
    if TRANSPOSE:
        src = (offs % cols) * rows + offs // cols
    else:
        src = offs
    x = tl.load(x_ptr + src, mask=mask, other=0.0)
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(p_ptr + offs, (p * decay - step * x).to(p_ptr.dtype.element_ty), mask=mask)


def _mm(a, b, out, alpha, c=None, beta=0.0):
    m, k = a.shape
    n = b.shape[1]
    BM, BN, BK = 32, 32, 32
    _mm_kernel[(triton.cdiv(m, BM), triton.cdiv(n, BN))](
        a, b, c if c is not None else out, out, m, n, k, a.stride(0), a.stride(1), b.stride(0),
        b.stride(1), alpha, beta, HAS_C=c is not None, BM=BM, BN=BN, BK=BK, num_warps=4)


def run(p, g, buf):
    lr, weight_decay, beta = 0.02, 0.01, 0.95
    a_coef, b_coef, c_coef = 3.4445, -4.7750, 2.0315
    rows, cols = p.shape
    transpose = rows > cols
    r, c = (cols, rows) if transpose else (rows, cols)  # the iteration's X is [r, c], r <= c
    n = rows * cols
    BLOCK = 1024
    blocks = triton.cdiv(n, BLOCK)
    dev = p.device
    x = torch.empty((r, c), dtype=torch.float32, device=dev)
    x_next = torch.empty_like(x)
    gram = torch.empty((r, r), dtype=torch.float32, device=dev)
    poly = torch.empty_like(gram)
    partial = torch.empty((blocks,), dtype=torch.float32, device=dev)
    inv = torch.empty((1,), dtype=torch.float32, device=dev)
    _momentum_kernel[(blocks,)](g, buf, x, partial, rows, cols, beta, TRANSPOSE=transpose,
                                BLOCK=BLOCK)
    _inv_norm_kernel[(1,)](partial, inv, blocks, BLOCK=64)
    _scale_kernel[(blocks,)](x, inv, n, BLOCK=BLOCK)
    for _ in range(5):
        _mm(x, x.t(), gram, 1.0)                                  # A = X X^T
        _mm(gram, gram, poly, c_coef, c=gram, beta=b_coef)        # B = b A + c A A
        _mm(poly, x, x_next, 1.0, c=x, beta=a_coef)               # X = a X + B X
        x, x_next = x_next, x
    step = lr * max(1.0, rows / cols) ** 0.5
    _apply_kernel[(blocks,)](p, x, rows, cols, 1.0 - lr * weight_decay, step,
                             TRANSPOSE=transpose, BLOCK=BLOCK)
