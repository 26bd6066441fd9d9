import torch
import triton
import triton.language as tl


@triton.jit
def _partial_bce(p_ptr, y_ptr, part_ptr, n, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * CHUNK
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, CHUNK, BLOCK):
        offs = base + start + tl.arange(0, BLOCK)
        mask = offs < n
        p = tl.load(p_ptr + offs, mask=mask, other=0.5).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        log_p = tl.maximum(tl.log(p), -100.0)          # log(0) = -inf -> -100
        log_1mp = tl.maximum(tl.log(1.0 - p), -100.0)
        l = -(y * log_p + (1.0 - y) * log_1mp)
        acc += tl.where(mask, l, 0.0)
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _finish(part_ptr, out_ptr, P, inv_count, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < P, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * inv_count)


def run(prob: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    p = prob.contiguous()
    y = target.contiguous()
    n = p.numel()
    BLOCK = min(triton.next_power_of_2(n), 2048)
    CHUNK = max(BLOCK, triton.next_power_of_2(triton.cdiv(n, 1024)))
    P = triton.cdiv(n, CHUNK)
    part = torch.empty((P,), dtype=torch.float32, device=p.device)
    out = torch.empty((), dtype=torch.float32, device=p.device)
    _partial_bce[(P,)](p, y, part, n, CHUNK=CHUNK, BLOCK=BLOCK, num_warps=4)
    _finish[(1,)](part, out, P, 1.0 / n, BLOCK=1024, num_warps=4)
    return out
