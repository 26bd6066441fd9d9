"""The interpreter repairs: bf16 tl.dot and fp32→bf16 rounding match PyTorch bit for bit, and
Python float arguments are fp32 scalars as in compiled Triton."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import ROOT

PROGRAM = textwrap.dedent('''
    import sys
    import torch, triton, triton.language as tl
    if sys.argv[1] == "fix":
        from kgb.worker.interpreter_fixes import apply
        assert apply()

    @triton.jit
    def mm(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N); rk = tl.arange(0, K)
        x = tl.load(a + rm[:, None] * K + rk[None, :])
        y = tl.load(b + rk[:, None] * N + rn[None, :])
        tl.store(c + rm[:, None] * N + rn[None, :], tl.dot(x, y).to(tl.bfloat16))

    g = torch.Generator().manual_seed(0)
    a = torch.randn(16, 32, generator=g).bfloat16()
    b = torch.randn(32, 16, generator=g).bfloat16()
    c = torch.empty(16, 16, dtype=torch.bfloat16)
    mm[(1,)](a, b, c, 16, 16, 32)
    print(torch.equal(c, (a.float() @ b.float()).bfloat16()))
''')


FLOAT_ARG_PROGRAM = textwrap.dedent('''
    import sys
    import torch, triton, triton.language as tl
    if sys.argv[1] == "fix":
        from kgb.worker.interpreter_fixes import apply
        assert apply()

    @triton.jit
    def scale(x_ptr, out_ptr, alpha, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * alpha)  # fp16 * fp32 scalar: fp32

    x = torch.tensor([1.0009765625, 3.0, 0.1, -7.5], dtype=torch.float16)
    out = torch.empty(4, dtype=torch.float32)
    alpha = 1.0 + 2.0 ** -12
    scale[(1,)](x, out, alpha, 4)
    print(torch.equal(out, x.float() * torch.tensor(alpha, dtype=torch.float32)))
''')


def run(mode: str, program: str = PROGRAM) -> str:
    env = {"TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", program, mode], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_bf16_dot_is_garbage_without_the_fix_and_exact_with_it():
    assert run("nofix") == "False"
    assert run("fix") == "True"


def test_float_arguments_are_fp32_scalars_as_when_compiled():
    """Without the fix the interpreter rounds the product to fp16 (the float acts as a weakly
    typed literal); compiled Triton on the H100 gives the fp32 product (docs/gpu.md)."""
    assert run("nofix", FLOAT_ARG_PROGRAM) == "False"
    assert run("fix", FLOAT_ARG_PROGRAM) == "True"
