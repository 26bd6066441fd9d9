import torch
import triton
import triton.language as tl


@triton.jit
def _bn_partial_kernel(x_ptr, cnt_ptr, mean_ptr, m2_ptr, N, C, HW, N_PER,
                       BLOCK: tl.constexpr):
    # Program (c, s): the planes n in [s * N_PER, (s + 1) * N_PER) of channel c. Two passes over
    # its slice give a local mean and a centered sum of squares (M2).
    c = tl.program_id(0)
    s = tl.program_id(1)
    n0 = s * N_PER
    n1 = tl.minimum(n0 + N_PER, N)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for n in range(n0, n1):
        base = (n * C + c).to(tl.int64) * HW
        for start in range(0, HW, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + base + offs, mask=offs < HW, other=0.0).to(tl.float32)
    count = ((n1 - n0) * HW).to(tl.float32)
    mean = tl.sum(acc, axis=0) / count
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for n in range(n0, n1):
        base = (n * C + c).to(tl.int64) * HW
        for start in range(0, HW, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < HW
            x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            d = tl.where(mask, x - mean, 0.0)
            acc += d * d
    idx = c * tl.num_programs(1) + s
    tl.store(cnt_ptr + idx, count)
    tl.store(mean_ptr + idx, mean)
    tl.store(m2_ptr + idx, tl.sum(acc, axis=0))


@triton.jit
def _bn_combine_kernel(cnt_ptr, pmean_ptr, m2_ptr, mean_ptr, invstd_ptr, SPLIT, eps,
                       BLOCK_S: tl.constexpr):
    # Chan's parallel merge of the SPLIT partial (count, mean, M2) of one channel.
    c = tl.program_id(0)
    s = tl.arange(0, BLOCK_S)
    mask = s < SPLIT
    cnt = tl.load(cnt_ptr + c * SPLIT + s, mask=mask, other=0.0)
    pm = tl.load(pmean_ptr + c * SPLIT + s, mask=mask, other=0.0)
    m2 = tl.load(m2_ptr + c * SPLIT + s, mask=mask, other=0.0)
    total = tl.sum(cnt, axis=0)
    mean = tl.sum(cnt * pm, axis=0) / total
    d = tl.where(mask, pm - mean, 0.0)
    var = (tl.sum(m2, axis=0) + tl.sum(cnt * d * d, axis=0)) / total
    tl.store(mean_ptr + c, mean)
    tl.store(invstd_ptr + c, 1.0 / tl.sqrt(var + eps))


@triton.jit
def _bn_apply_kernel(x_ptr, mean_ptr, invstd_ptr, w_ptr, b_ptr, out_ptr, C, HW,
                     BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    c = plane % C
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < HW
    mean = tl.load(mean_ptr + c)
    scale = tl.load(invstd_ptr + c) * tl.load(w_ptr + c)
    b = tl.load(b_ptr + c)
    base = plane.to(tl.int64) * HW
    x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + base + offs, ((x - mean) * scale + b).to(out_ptr.dtype.element_ty),
             mask=mask)


def run(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor):
    N, C, H, W = x.shape
    x = x.contiguous()
    HW = H * W
    dev = x.device
    # Split every channel over about 16 slices of planes (fewer when N is small).
    n_per = triton.cdiv(N, min(N, 16))
    split = triton.cdiv(N, n_per)
    cnt = torch.empty((C, split), dtype=torch.float32, device=dev)
    pmean = torch.empty((C, split), dtype=torch.float32, device=dev)
    m2 = torch.empty((C, split), dtype=torch.float32, device=dev)
    mean = torch.empty((C,), dtype=torch.float32, device=dev)
    invstd = torch.empty((C,), dtype=torch.float32, device=dev)
    out = torch.empty((N, C, H, W), dtype=x.dtype, device=dev)
    BLOCK = min(triton.next_power_of_2(HW), 2048)
    _bn_partial_kernel[(C, split)](x, cnt, pmean, m2, N, C, HW, n_per, BLOCK=BLOCK,
                                   num_warps=4)
    _bn_combine_kernel[(C,)](cnt, pmean, m2, mean, invstd, split, 1e-5,
                             BLOCK_S=triton.next_power_of_2(split), num_warps=1)
    _bn_apply_kernel[(N * C, triton.cdiv(HW, BLOCK))](x, mean, invstd, weight.contiguous(),
                                                      bias.contiguous(), out, C, HW,
                                                      BLOCK=BLOCK, num_warps=4)
    return out, mean, invstd
