"""Suite kernels that the CPU interpreter ran but an H100 refused to compile, compiled here for
sm_90 with Triton's own compiler (no GPU needed: front end, LLVM and the bundled ptxas), so the
fixes stay fixed; and the worker's one-line description of such an error names its cause.

Each compile runs in a fresh process without TRITON_INTERPRET: in the test session the
interpreter is on, and @triton.jit then builds interpreter functions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

SORT_SIGNATURE = {"M": "i32", "N": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                  "LOG_N": "constexpr"}
SORT_SIZES = {"BLOCK_M": 4, "BLOCK_N": 8, "LOG_N": 3}

_COMPILE = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from kgb.worker.errors import describe
path, name, signature, constexprs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), \\
    json.loads(sys.argv[4])
spec = importlib.util.spec_from_file_location("kernel_under_test", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
try:
    compiled = triton.compile(ASTSource(getattr(module, name), signature, constexprs=constexprs),
                              target=GPUTarget("cuda", 90, 32))
    print(json.dumps({"ok": True, "stores": "st.global" in compiled.asm["ptx"]}))
except Exception as exc:
    print(json.dumps({"ok": False, "description": describe(exc, path)}))
"""


def _compile(path, name, signature, constexprs) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", _COMPILE, str(path), name,
                           json.dumps(signature), json.dumps(constexprs)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("task, kernel, pointers", [
    ("Index/argsort_desc", "_argsort_desc_kernel", {"x_ptr": "*i32", "out_ptr": "*i64"}),
    ("Index/sort_rows", "_sort_rows_kernel",
     {"x_ptr": "*fp32", "val_ptr": "*fp32", "idx_ptr": "*i64"}),
])
def test_the_bitonic_sorts_compile_for_a_hopper_gpu(task, kernel, pointers):
    # they once reassigned an annotated constexpr local in a static loop: the interpreter ran
    # it, the compiler said "d is already defined. constexpr cannot be reassigned"
    result = _compile(ROOT / "tasks" / task / "solution.py", kernel,
                      {**pointers, **SORT_SIGNATURE}, SORT_SIZES)
    assert result == {"ok": True, "stores": True}


def test_a_chained_compile_error_is_described_by_its_cause(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\ndef _inner(x, N: tl.constexpr):\n"
        "    for s in tl.static_range(0, N):\n"
        "        d: tl.constexpr = 1 << s\n"
        "        x = x + d\n"
        "    return x\n\n\n"
        "@triton.jit\ndef _outer(out_ptr, N: tl.constexpr):\n"
        "    tl.store(out_ptr, _inner(tl.zeros((1,), dtype=tl.int32), N))\n")
    result = _compile(src, "_outer", {"out_ptr": "*i32", "N": "constexpr"}, {"N": 3})
    text = result["description"]
    assert not result["ok"] and text.startswith("CompilationError: at ")
    assert "constexpr cannot be reassigned" in text and len(text) <= 520


def _aot_check(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "aot_check.py"), *args],
                          capture_output=True, text=True, env=env, timeout=600)


def test_aot_check_refuses_an_int32_accumulator_without_out_dtype_as_the_gpu_did(tmp_path):
    # Run 20 (H100, Triton 3.6): "CompilationError at 17:14 ... AssertionError" on every case
    # of two int8 GEMM solutions that the interpreter (Triton 3.9) passed: 3.6 defaults
    # tl.dot's out_dtype to float32. The check compiles for sm_90 with that default.
    folder = tmp_path / "Quantization" / "w8a8_int8_gemm"
    shutil.copytree(ROOT / "tasks" / "Quantization" / "w8a8_int8_gemm", folder)
    source = (folder / "solution.py").read_text()
    fixed = "acc = tl.dot(a, w, acc, out_dtype=tl.int32)"
    assert fixed in source
    (folder / "solution.py").write_text(source.replace(fixed, "acc = tl.dot(a, w, acc)"))
    done = _aot_check("--tasks", str(tmp_path), "--cpu-shapes", "--dtypes", "float32",
                      "--upto", "ttir")  # the front end refuses it: the later stages never run
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    assert "FAIL quantization.w8a8_int8_gemm: w8a8_int8_gemm/_w8a8_gemm_kernel" in done.stdout
    assert "pass out_dtype=int32" in done.stdout  # the cause, not only "AssertionError"


def test_the_int8_gemm_solutions_compile_for_a_hopper_gpu():
    done = _aot_check("--only", "fusion.add_rms_norm_w8a8_proj,fusion.w8a8_int8_swiglu_mlp,"
                      "quantization.w8a8_int8_gemm", "--cpu-shapes", "--dtypes", "float32")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "0 task(s) with a kernel that does not compile, 0 not checked" in done.stdout
