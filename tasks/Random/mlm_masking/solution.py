import torch
import triton
import triton.language as tl


@triton.jit
def _mlm_mask_kernel(ids_ptr, special_ptr, out_ptr, labels_ptr, n, vocab, mask_id, prob, seed,
                     BLOCK: tl.constexpr):
    # four Philox outputs per position: selection, the 80/10/10 split, a 64-bit random token
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ids = tl.load(ids_ptr + offs, mask=mask, other=0)
    special = tl.load(special_ptr + offs, mask=mask, other=1).to(tl.int32) != 0
    r0, r1, r2, r3 = tl.randint4x(seed, offs)
    u_select = (r0 >> 8).to(tl.float32) * (1.0 / 16777216.0)
    u_split = (r1 >> 8).to(tl.float32) * (1.0 / 16777216.0)
    token = (((r2.to(tl.uint64) << 32) | r3.to(tl.uint64)) % vocab.to(tl.uint64)).to(tl.int64)
    chosen = (u_select < prob) & (special == 0)
    new = tl.where(u_split < 0.8, mask_id.to(tl.int64), tl.where(u_split < 0.9, token, ids))
    tl.store(out_ptr + offs, tl.where(chosen, new, ids), mask=mask)
    tl.store(labels_ptr + offs, tl.where(chosen, ids, -100), mask=mask)


def run(input_ids: torch.Tensor, special_tokens_mask: torch.Tensor, vocab_size: int,
        mask_token_id: int, mlm_probability: float, seed: int):
    ids = input_ids.contiguous()
    special = special_tokens_mask.contiguous()
    out = torch.empty_like(ids)
    labels = torch.empty_like(ids)
    n = ids.numel()
    BLOCK = 1024
    _mlm_mask_kernel[(triton.cdiv(n, BLOCK),)](ids, special, out, labels, n, vocab_size,
                                               mask_token_id, mlm_probability, seed,
                                               BLOCK=BLOCK, num_warps=4)
    return out, labels
