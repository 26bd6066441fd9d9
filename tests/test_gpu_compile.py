"""Suite kernels that the CPU interpreter ran but an H100 refused to compile, compiled here for
sm_90 with Triton's own compiler (no GPU needed: front end, LLVM and the bundled ptxas), so the
fixes stay fixed; and the worker's one-line description of such an error names its cause."""

from __future__ import annotations

import importlib.util

import pytest
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from conftest import ROOT

SORT_SIGNATURE = {"M": "i32", "N": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                  "LOG_N": "constexpr"}
SORT_SIZES = {"BLOCK_M": 4, "BLOCK_N": 8, "LOG_N": 3}


def _kernel(path, name):
    spec = importlib.util.spec_from_file_location(f"kgb_gpu_compile_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def _compile(fn, signature, constexprs):
    return triton.compile(ASTSource(fn, signature, constexprs=constexprs),
                          target=GPUTarget("cuda", 90, 32))


@pytest.mark.parametrize("task, kernel, pointers", [
    ("Index/argsort_desc", "_argsort_desc_kernel", {"x_ptr": "*i32", "out_ptr": "*i64"}),
    ("Index/sort_rows", "_sort_rows_kernel",
     {"x_ptr": "*fp32", "val_ptr": "*fp32", "idx_ptr": "*i64"}),
])
def test_the_bitonic_sorts_compile_for_a_hopper_gpu(task, kernel, pointers):
    # they once reassigned an annotated constexpr local in a static loop: the interpreter ran
    # it, the compiler said "d is already defined. constexpr cannot be reassigned"
    fn = _kernel(ROOT / "tasks" / task / "solution.py", kernel)
    compiled = _compile(fn, {**pointers, **SORT_SIGNATURE}, SORT_SIZES)
    assert "st.global" in compiled.asm["ptx"]


def test_a_chained_compile_error_is_described_by_its_cause(tmp_path):
    from kgb.worker.errors import describe

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
    fn = _kernel(src, "_outer")
    with pytest.raises(Exception) as caught:
        _compile(fn, {"out_ptr": "*i32", "N": "constexpr"}, {"N": 3})
    text = describe(caught.value, str(src))
    assert text.startswith("CompilationError: at ")
    assert "constexpr cannot be reassigned" in text and len(text) <= 520
