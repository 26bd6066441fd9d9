"""kgb.worker.interpreter_speed's type memos (issue 24): the interpreter's per-op constructors
reused for a known key, and shapes compared without re-normalising plain ints, with the same
results bit for bit and the same errors.

One fresh interpreter per mode (the memos patch Triton's classes for the whole process)."""

from __future__ import annotations

import subprocess
import sys

_KERNELS = """
import hashlib, os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from kgb.worker import interpreter_fixes, interpreter_speed

interpreter_fixes.apply()  # as the worker does, the bf16 repairs included
built = [0]  # shapes validated: each block type the original constructor builds
validate = tl.core.validate_block_shape
def counting(shape):
    built[0] += 1
    return validate(shape)
tl.core.validate_block_shape = counting
if sys.argv[1] == "on":
    print(",".join(interpreter_speed.apply_type_memos()))
else:
    print("off")

@triton.jit
def dropout_mix(x_ptr, y_ptr, out_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    r = tl.rand(seed, offs)  # Philox rounds: scalar constants splat onto blocks
    out = tl.where(r > 0.5, x * y + 1.5, x - y)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)

@triton.jit
def rows_minus_mean(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]  # 2-D broadcasts
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(x_ptr + rows * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    tl.store(out_ptr + rows * N + cols, (x - mean[:, None]).to(out_ptr.dtype.element_ty),
             mask=mask)

digest = hashlib.sha256()
gen = torch.Generator().manual_seed(0)
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    x, y = (torch.randn(300, generator=gen).to(dtype) for _ in range(2))
    out = torch.empty_like(x)
    dropout_mix[(triton.cdiv(300, 128),)](x, y, out, 300, 1234, BLOCK=128)
    digest.update(out.view(torch.uint8).numpy().tobytes())
    m = torch.randn(5, 37, generator=gen).to(dtype)
    out = torch.empty_like(m)
    rows_minus_mean[(3,)](m, out, 5, 37, BLOCK_M=2, BLOCK_N=64)
    digest.update(out.view(torch.uint8).numpy().tobytes())
print(digest.hexdigest(), built[0])

def outcome(make):
    try:
        return "ok " + str(make())
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"

for _ in range(2):  # the second time is where a memo would answer
    print(outcome(lambda: tl.core.block_type(tl.float32, [3])))  # not a power of 2
    print(outcome(lambda: tl.core.block_type(tl.float32, [])))  # 0-d
    print(outcome(lambda: tl.core.block_type(tl.float32, (4,))))  # a builtin tuple: asserted
    print(outcome(lambda: tl.core.block_type(tl.pointer_type(tl.float16), [8, 2])))
    print(outcome(lambda: tl.core.block_type(tl.pointer_type(tl.float16, const=True), [8, 2])))
    print(outcome(lambda: tl.core.block_type(tl.bfloat16, [4]).numel))
    shape = tl.core.tuple([4, 8])
    print(outcome(lambda: [shape == [4, 8], shape != [4, 16], shape == (4, 8),
                           shape == tl.core.tuple([4, 8]), shape == [tl.constexpr(4), 8],
                           shape == [4, 8.0], shape == [4]]))
"""


def test_the_type_memos_give_the_same_bits_and_errors_and_skip_the_rebuilds() -> None:
    runs = {mode: subprocess.run([sys.executable, "-c", _KERNELS, mode], capture_output=True,
                                 text=True, check=True).stdout.splitlines()
            for mode in ("off", "on")}
    off, on = runs["off"], runs["on"]
    assert on[0] == "np_dtype,block_type,tensor,tuple_eq", on  # all installed on this Triton
    (digest_off, built_off), (digest_on, built_on) = off[1].split(), on[1].split()
    assert digest_on == digest_off  # fp32, fp16 and bf16 outputs, bit for bit
    # off: a block type per op and more; on: one per (element type, shape) met, and
    # tl.arange's own checks
    assert int(built_off) > 1000 and int(built_on) < int(built_off) // 20, (built_off, built_on)
    assert on[2:] == off[2:], (off[2:], on[2:])  # errors, names and sizes, twice
    assert on[2].startswith("ValueError") and on[4].startswith("AssertionError")
    assert "const_pointer<fp16>" in on[6] and on[7] == "ok 4"
    assert on[8] == "ok [constexpr[True], True, constexpr[True], constexpr[True], " \
        "constexpr[True], constexpr[True], constexpr[False]]"
