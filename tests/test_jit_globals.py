"""Compiled Triton refuses plain globals in kernels; the CPU interpreter does not. kgb predicts
the GPU's compile error on the CPU instead of passing a kernel no GPU can compile."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_kgb, write_submission
from kgb.worker.jit_globals import non_constexpr_globals

FIXTURES = ROOT / "tests" / "fixtures" / "compile"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"jitg_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1)
                if text in line and not line.lstrip().startswith(("#", "HALF =", "def ")))


@pytest.mark.parametrize("fixture, name, is_function", [
    ("addcmul_plain_global.py", "HALF", False),
    ("addcmul_python_helper.py", "_half", True),
])
def test_refused_globals_are_found_with_their_line(fixture, name, is_function):
    path = FIXTURES / fixture
    [use] = non_constexpr_globals(_load(path))
    assert (use.kernel, use.name, use.is_function) == ("_addcmul_kernel", name, is_function)
    assert use.line == _line_of(path, name)


def test_constexpr_globals_jit_helpers_modules_and_dtypes_are_allowed():
    assert non_constexpr_globals(_load(FIXTURES / "addcmul_constexpr_global.py")) == []


def test_no_suite_solution_reads_a_refused_global():
    found = {p.parent.name: non_constexpr_globals(_load(p))
             for p in sorted((ROOT / "tasks").glob("*/*/solution.py"))}
    assert len(found) >= 16 and not any(found.values()), found


@pytest.mark.parametrize("fixture, verdict", [("addcmul_plain_global.py", "compile_error"),
                                              ("addcmul_constexpr_global.py", "passed")])
def test_verify_on_the_cpu_gives_the_gpu_verdict(fixture, verdict, tmp_path):
    sub = write_submission(tmp_path / "sub", {"math.addcmul": (FIXTURES / fixture).read_text()})
    done = run_kgb("verify", sub, "--device", "cpu", "--sandbox", "process", "--only",
                   "math.addcmul", "--json", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    [job] = json.loads((tmp_path / "out" / "report.json").read_text())["jobs"]
    assert job["verdict"] == verdict, job["message"]
    if verdict == "compile_error":
        assert "reads the global HALF" in job["message"]
        assert "math_addcmul.py:" in job["message"]


def _raised_in(filename: str) -> BaseException:
    namespace: dict = {}
    exec(compile("def f():\n    raise RuntimeError('Unsupported function referenced')\n",
                 filename, "exec"), namespace)
    try:
        namespace["f"]()
    except RuntimeError as exc:
        return exc
    raise AssertionError("not raised")


def test_plain_errors_raised_by_tritons_compiler_are_compile_errors():
    """On the GPU a Python helper called in a kernel fails in Triton's code generator with a
    plain RuntimeError (seen on an H100, Triton 3.6): that is a compile error, not a crash."""
    from kgb.worker.errors import error_kind

    assert error_kind(_raised_in("/x/site-packages/triton/compiler/code_generator.py")) == \
        "compile"
    assert error_kind(_raised_in("/x/site-packages/triton/backends/nvidia/driver.py")) == \
        "runtime"


ERRORS = ROOT / "tests" / "fixtures" / "errors"


@pytest.mark.slow
@pytest.mark.parametrize("fixture, says", [("addcmul_arange_not_pow2.py", "power of 2"),
                                           ("addcmul_unknown_tl_function.py", "fma_fast")])
def test_what_the_compiler_refuses_is_a_compile_error_at_the_kernels_line(fixture, says,
                                                                           tmp_path):
    """On the CPU the interpreter raises these at launch, from inside the kernel body; a GPU
    refuses them when compiling. Either way the verdict is compile_error, located at the
    kernel's own line (not the launch line), with the trimmed traceback kept."""
    source = (ERRORS / fixture).read_text()
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "the mistake" in text)
    sub = write_submission(tmp_path / "sub", {"math.addcmul": source})
    done = run_kgb("verify", sub, "--device", "cpu", "--sandbox", "process", "--only",
                   "math.addcmul", "--json", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    [job] = json.loads((tmp_path / "out" / "report.json").read_text())["jobs"]
    assert job["verdict"] == "compile_error", job["message"]
    assert says in job["message"] and f"math_addcmul.py:{line}" in job["message"], job["message"]
    kept = (tmp_path / "out" / job["log_dir"] / "out" / "traceback.txt").read_text()
    assert f"line {line}" in kept, kept
    assert job["traceback"] == kept  # in report.json too
    assert "kernel file's frames only" in kept and "site-packages" not in kept
