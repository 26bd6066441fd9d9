import torch
import triton
import triton.language as tl


@triton.jit
def _gumbel_max_kernel(logits_ptr, out_ptr, V, S, stride_r, seed,
                       BLOCK_S: tl.constexpr, BLOCK_V: tl.constexpr):
    # Sample j of a row is argmax over v of logits[v] + g, g = -log(-log(u)) Gumbel noise from a
    # Philox uniform keyed on (seed, (row * S + j) * V + v): a draw of softmax(logits).
    row = tl.program_id(0)
    samples = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    smask = samples < S
    best = tl.full((BLOCK_S,), float("-inf"), tl.float32)
    arg = tl.zeros((BLOCK_S,), tl.int32)
    base = (row.to(tl.int64) * S + samples) * V
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        vmask = cols < V
        logit = tl.load(logits_ptr + row * stride_r + cols, mask=vmask,
                        other=float("-inf")).to(tl.float32)
        u = tl.rand(seed, base[:, None] + cols[None, :])
        u = tl.maximum(u, 1e-30)  # u = 0 gives -inf noise, which never wins
        score = logit[None, :] - tl.log(-tl.log(u))
        score = tl.where(vmask[None, :], score, float("-inf"))
        chunk_best = tl.max(score, axis=1)
        chunk_arg = tl.argmax(score, axis=1)
        better = chunk_best > best
        arg = tl.where(better, v0 + chunk_arg, arg)
        best = tl.where(better, chunk_best, best)
    tl.store(out_ptr + row.to(tl.int64) * S + samples, arg.to(tl.int64), mask=smask)


def run(logits: torch.Tensor, s: int, seed: int) -> torch.Tensor:
    m, v = logits.shape
    out = torch.empty((m, s), device=logits.device, dtype=torch.int64)
    BLOCK_S, BLOCK_V = 16, 256
    _gumbel_max_kernel[(m, triton.cdiv(s, BLOCK_S))](logits, out, v, s, logits.stride(0), seed,
                                                     BLOCK_S=BLOCK_S, BLOCK_V=BLOCK_V)
    return out
