import torch
import triton
import triton.language as tl


@triton.jit
def _lerp_backward_kernel(start_ptr, end_ptr, weight_ptr, grad_out_ptr, out0_ptr, out1_ptr,
                          out2_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    start = tl.load(start_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    end = tl.load(end_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    weight = tl.load(weight_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    grad_out = tl.load(grad_out_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    g_start = grad_out * (1.0 - weight)
    g_end = grad_out * weight
    g_weight = grad_out * (end - start)
    tl.store(out0_ptr + offsets, g_start.to(out0_ptr.dtype.element_ty), mask=mask)
    tl.store(out1_ptr + offsets, g_end.to(out1_ptr.dtype.element_ty), mask=mask)
    tl.store(out2_ptr + offsets, g_weight.to(out2_ptr.dtype.element_ty), mask=mask)


def run(start: torch.Tensor, end: torch.Tensor, weight: torch.Tensor,
        grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    start, end, weight, grad_out = start.contiguous(), end.contiguous(), weight.contiguous(), grad_out.contiguous()
    out0 = torch.empty_like(start)
    out1 = torch.empty_like(start)
    out2 = torch.empty_like(start)
    n = start.numel()
    BLOCK = 1024
    _lerp_backward_kernel[(triton.cdiv(n, BLOCK),)](start, end, weight, grad_out, out0, out1, out2,
                                                    n, BLOCK=BLOCK, num_warps=4)
    return out0, out1, out2
