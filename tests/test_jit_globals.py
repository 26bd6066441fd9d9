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
ERRORS = ROOT / "tests" / "fixtures" / "errors"

# Every `kgb verify` of this file in one batch (one member per fixture, each its own report
# under out/<member>/): five runs of the same task before, each paying kgb's start-up.
BATCH = {"plain_global": FIXTURES / "addcmul_plain_global.py",
         "constexpr_global": FIXTURES / "addcmul_constexpr_global.py",
         "arange_not_pow2": ERRORS / "addcmul_arange_not_pow2.py",
         "unknown_tl_function": ERRORS / "addcmul_unknown_tl_function.py",
         "flaggems_namespace": FIXTURES / "addcmul_flaggems_namespace.py"}


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    """The batch's out folder, once its run ended with exit 0."""
    root = tmp_path_factory.mktemp("jit-globals")
    for name, path in BATCH.items():
        write_submission(root / "subs" / name, {"math.addcmul": path.read_text()}, name=name)
    done = run_kgb("verify", root / "subs", "--device", "cpu", "--sandbox", "process",
                   "--only", "math.addcmul", "--json", "--out", root / "out")
    assert done.returncode == 0, done.stderr
    return root / "out"


def _job(out: Path, member: str) -> dict:
    [job] = json.loads((out / member / "report.json").read_text())["jobs"]
    return job


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


@pytest.mark.parametrize("member, verdict", [("plain_global", "compile_error"),
                                             ("constexpr_global", "passed")])
def test_verify_on_the_cpu_gives_the_gpu_verdict(member, verdict, batch):
    job = _job(batch, member)
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


@pytest.mark.slow
@pytest.mark.parametrize("member, says", [("arange_not_pow2", "power of 2"),
                                          ("unknown_tl_function", "fma_fast")])
def test_what_the_compiler_refuses_is_a_compile_error_at_the_kernels_line(member, says, batch):
    """On the CPU the interpreter raises these at launch, from inside the kernel body; a GPU
    refuses them when compiling. Either way the verdict is compile_error, located at the
    kernel's own line (not the launch line), with the trimmed traceback kept."""
    source = BATCH[member].read_text()
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "the mistake" in text)
    job = _job(batch, member)
    assert job["verdict"] == "compile_error", job["message"]
    assert says in job["message"] and f"math_addcmul.py:{line}" in job["message"], job["message"]
    kept = (batch / member / job["log_dir"] / "out" / "traceback.txt").read_text()
    assert f"line {line}" in kept, kept
    assert job["traceback"] == kept  # in report.json too
    assert "kernel file's frames only" in kept and "site-packages" not in kept


# -- kgb's rule is the installed Triton's: every kind of global, against the real compiler ------

KINDS = FIXTURES / "global_kinds.py"

_COMPILE_EACH = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = importlib.util.spec_from_file_location("kernel_under_test", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
compiled = {}
for name, kernel in vars(module).items():
    if name.startswith("k_"):
        try:
            triton.compile(ASTSource(kernel, {"out_ptr": "*fp32"}, constexprs={}),
                           target=GPUTarget("cuda", 90, 32))
            compiled[name[2:]] = True
        except Exception:
            compiled[name[2:]] = False
print(json.dumps(compiled))
"""

_PREDICT = """
import importlib.util, json, sys
from kgb.worker.interpreter_fixes import apply, bind_builtin_aliases
from kgb.worker.jit_globals import non_constexpr_globals
apply()
spec = importlib.util.spec_from_file_location("kernel_under_test", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
bind_builtin_aliases(module)
uses = non_constexpr_globals(module)
kernels = [name[2:] for name in vars(module) if name.startswith("k_")]
print(json.dumps({k: not any(u.kernel == "k_" + k for u in uses) for k in kernels}))
"""


def _in_python(program: str, interpret: bool, path: Path = KINDS) -> dict[str, bool]:
    """Each compile (or prediction) in a fresh process: with TRITON_INTERPRET set, @triton.jit
    builds interpreter functions, without it the compiler's."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update({"PYTHONPATH": str(ROOT), "TRITON_DEFAULT_FP_FUSION": "1"})
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    done = subprocess.run([sys.executable, "-c", program, str(path)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def compiled_for_sm90() -> dict[str, bool]:
    return _in_python(_COMPILE_EACH, interpret=False)


def test_the_cpu_predicts_the_compilers_verdict_on_every_kind_of_global(compiled_for_sm90):
    predicted = _in_python(_PREDICT, interpret=True)
    assert predicted == compiled_for_sm90
    # the kinds the issue names, spelt out: what Triton 3.x accepts and refuses
    accepted = {k for k, ok in compiled_for_sm90.items() if ok}
    assert {"tle", "Consts", "INT_CONSTEXPR", "NONE", "DTYPE", "JIT", "MODULE", "len"} <= \
        accepted
    assert not {"PAIR_INSTANCE", "CONSTS_INSTANCE", "PLAIN_INT", "PLAIN_FLOAT", "PYFUNC",
                "DICT", "LIST", "TUPLE", "TENSOR", "PlainClass", "abs", "np"} & accepted


def test_a_namedtuple_namespace_of_jit_helpers_passes_on_the_cpu_as_it_compiles(batch):
    """FlagGems' `tle` (a NamedTuple class of jit helpers) compiles for sm_90 (checked here
    with the real compiler), so the CPU must pass it: it once ended compile_error there."""
    path = BATCH["flaggems_namespace"]
    assert non_constexpr_globals(_load(path)) == []
    job = _job(batch, "flaggems_namespace")
    assert job["verdict"] == "passed", job["message"]


def test_a_helper_in_a_namespace_class_reading_a_plain_global_is_a_compile_error():
    """Kernels kept in a class used as a namespace are looked at too: the compiler refuses
    this one (tests/test_jit_globals.py compiles it), so the CPU predicts it."""
    path = FIXTURES / "addcmul_namespace_plain_global.py"
    [use] = non_constexpr_globals(_load(path))
    assert (use.kernel, use.name, use.line) == ("fma_half", "HALF", _line_of(path, "+ HALF *"))


def test_both_namespace_fixtures_meet_the_real_compiler():
    program = _COMPILE_EACH.replace('if name.startswith("k_")', 'if name == "_addcmul_kernel"')
    program = program.replace('{"out_ptr": "*fp32"}, constexprs={}',
                              '{"x_ptr": "*fp32", "t1_ptr": "*fp32", "t2_ptr": "*fp32", '
                              '"out_ptr": "*fp32", "n_elements": "i32", "BLOCK": "constexpr"}, '
                              'constexprs={"BLOCK": 1024}')
    program = program.replace("compiled[name[2:]]", "compiled[name]")
    results = {fixture: _in_python(program, interpret=False, path=FIXTURES / fixture)
               for fixture in ("addcmul_flaggems_namespace.py",
                               "addcmul_namespace_plain_global.py")}
    assert results == {"addcmul_flaggems_namespace.py": {"_addcmul_kernel": True},
                       "addcmul_namespace_plain_global.py": {"_addcmul_kernel": False}}


def test_without_tritons_own_lookup_every_global_is_refused(monkeypatch):
    """Fail closed: if the installed Triton no longer has the global lookup kgb runs, kgb
    predicts a refusal rather than guessing with a copy of an old rule."""
    import triton.language as tl
    from triton.compiler.code_generator import CodeGenerator

    from kgb.worker import jit_globals

    assert jit_globals._allowed("X", tl.constexpr(1))  # the installed Triton's lookup is found
    assert not jit_globals._allowed("X", 1)
    monkeypatch.delattr(CodeGenerator, "_define_name_lookup")
    assert not jit_globals._allowed("X", tl.constexpr(1))


_COMPILE_REGISTERED = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = importlib.util.spec_from_file_location("kernel_under_test", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["kernel_under_test"] = module  # the fixture reaches itself through sys.modules
spec.loader.exec_module(module)
try:
    triton.compile(ASTSource(module._matmul, {"c_ptr": "*fp32", "a_ptr": "*fp32"},
                             constexprs={}), target=GPUTarget("cuda", 90, 32))
    print(json.dumps({"_matmul": "compiled"}))
except Exception as exc:
    print(json.dumps({"_matmul": str(exc)[:200]}))
"""


def test_a_host_function_reached_through_a_module_attribute_is_a_compile_error():
    """Triton's own dependency walk (DependenciesFinder, run before code generation) refuses a
    Python function a kernel reaches as `module.helper`; the interpreter used to run it as
    host Python inside the kernel. kgb runs the same walk on the CPU."""
    path = FIXTURES / "matmul_helper_through_module_attribute.py"
    [use] = non_constexpr_globals(_load(path))
    assert use.kernel == "_matmul" and use.line == _line_of(path, "the refused reference")
    assert use.refused == "RuntimeError: Unsupported function referenced: <function _host>"
    assert use.message("k.py").endswith("(k.py:%d)" % use.line)
    compiled = _in_python(_COMPILE_REGISTERED, interpret=False, path=path)
    assert compiled["_matmul"].startswith("Unsupported function referenced: <function _host")
