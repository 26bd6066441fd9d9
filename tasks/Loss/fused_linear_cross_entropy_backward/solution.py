import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_f32_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                     stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = A @ B with both operands upcast to float32 and an IEEE float32 dot (no TF32)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :].to(tl.int64) * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _dlogits_kernel(z_ptr, t_ptr, g_ptr, N, V, BLOCK: tl.constexpr):
    # in place: row i of the float32 logits becomes grad_out / N * (softmax - one_hot)
    row = tl.program_id(0).to(tl.int64)
    z_row = z_ptr + row * V
    m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        z = tl.load(z_row + cols, mask=cols < V, other=-float("inf"))
        m_new = tl.maximum(m, z)
        seen = m_new > -float("inf")
        m_safe = tl.where(seen, m_new, 0.0)
        s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(z - m_safe), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    scale = tl.load(g_ptr) / N
    inv = 1.0 / total
    t = tl.load(t_ptr + row)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < V
        z = tl.load(z_row + cols, mask=mask, other=0.0)
        d = tl.exp(z - row_max) * inv - tl.where(cols == t, 1.0, 0.0)
        tl.store(z_row + cols, scale * d, mask=mask)


def _gemm(a, a_strides, b, b_strides, c, M, N, K):
    BM, BN, BK = 32, 32, 32
    _gemm_f32_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        a, b, c, M, N, K, a_strides[0], a_strides[1], b_strides[0], b_strides[1],
        c.stride(0), c.stride(1), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=4)


def run(h: torch.Tensor, weight: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor):
    N, H = h.shape
    V = weight.shape[0]
    h, weight, target = h.contiguous(), weight.contiguous(), target.contiguous()
    dz = torch.empty((N, V), dtype=torch.float32, device=h.device)
    # logits = h @ weight.T (weight read through transposed strides)
    _gemm(h, (H, 1), weight, (1, H), dz, N, V, H)
    BLOCK = min(triton.next_power_of_2(V), 4096)
    _dlogits_kernel[(N,)](dz, target, grad_out, N, V, BLOCK=BLOCK,
                          num_warps=8 if BLOCK >= 2048 else 4)
    grad_h = torch.empty((N, H), dtype=h.dtype, device=h.device)
    _gemm(dz, (V, 1), weight, (H, 1), grad_h, N, H, V)
    grad_w = torch.empty((V, H), dtype=h.dtype, device=h.device)
    # grad_weight = dz.T @ h (dz read through transposed strides)
    _gemm(dz, (1, V), h, (H, 1), grad_w, V, H, N)
    return grad_h, grad_w
