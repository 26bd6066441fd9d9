"""Compiled Triton: a kernel storing x_fp16 * alpha (alpha a Python float argument) computes in
fp32. Prints True when the result equals x.float() * fp32(alpha) (tests/test_interpreter_fixes.py
checks the CPU interpreter against the same program). Run: $PY scripts/gpu/float_arg.py nofix"""
import sys
import torch, triton, triton.language as tl
if sys.argv[1] == "fix":
    from kgb.worker.interpreter_fixes import apply
    assert apply()

@triton.jit
def scale(x_ptr, out_ptr, alpha, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * alpha)  # fp16 * fp32 scalar: fp32

x = torch.tensor([1.0009765625, 3.0, 0.1, -7.5], dtype=torch.float16, device="cuda")
out = torch.empty(4, dtype=torch.float32, device="cuda")
alpha = 1.0 + 2.0 ** -12
scale[(1,)](x, out, alpha, 4)
print(torch.equal(out, x.float() * torch.tensor(alpha, dtype=torch.float32, device="cuda")))
