import torch
import triton
import triton.language as tl


@triton.jit
def _partial_nll(lp_ptr, t_ptr, sum_ptr, cnt_ptr, N, C, CHUNK: tl.constexpr,
                 BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * CHUNK
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    cnt = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, CHUNK, BLOCK):
        rows = base + start + tl.arange(0, BLOCK)
        rmask = rows < N
        t = tl.load(t_ptr + rows, mask=rmask, other=-100)
        use = rmask & (t != -100)
        lp = tl.load(lp_ptr + rows * C + tl.where(use, t, 0), mask=use, other=0.0)
        acc += lp.to(tl.float32)
        cnt += use.to(tl.int32)
    tl.store(sum_ptr + pid, tl.sum(acc, axis=0))
    tl.store(cnt_ptr + pid, tl.sum(cnt, axis=0))


@triton.jit
def _finish(sum_ptr, cnt_ptr, out_ptr, P, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    cnt = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(sum_ptr + offs, mask=offs < P, other=0.0)
        cnt += tl.load(cnt_ptr + offs, mask=offs < P, other=0)
    tl.store(out_ptr, -tl.sum(acc, axis=0) / tl.sum(cnt, axis=0).to(tl.float32))


def run(log_probs: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    N, C = log_probs.shape
    lp = log_probs.contiguous()
    t = target.contiguous()
    BLOCK = min(triton.next_power_of_2(N), 1024)
    CHUNK = max(BLOCK, triton.next_power_of_2(triton.cdiv(N, 1024)))
    P = triton.cdiv(N, CHUNK)
    sums = torch.empty((P,), dtype=torch.float32, device=lp.device)
    cnts = torch.empty((P,), dtype=torch.int32, device=lp.device)
    out = torch.empty((), dtype=torch.float32, device=lp.device)
    _partial_nll[(P,)](lp, t, sums, cnts, N, C, CHUNK=CHUNK, BLOCK=BLOCK, num_warps=4)
    _finish[(1,)](sums, cnts, out, P, BLOCK=1024, num_warps=4)
    return out
