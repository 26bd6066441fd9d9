"""Threat 34, host objects through a launch (issue 26, cause 3): every launch, interpreted or
compiled, is screened before it compiles or runs — a constexpr must be a compile-time value and
any other argument one Triton's launcher specializes — and the aten ops an interpreted kernel
body runs itself are recorded. The trusted side rejects either with D207 (the dynamic corpus
has the end-to-end fixtures: d207_*.py and their honest twin)."""

from __future__ import annotations

import collections
import enum
import json
import os
import subprocess
import sys
import textwrap
from typing import NamedTuple

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

from conftest import ROOT
from kgb.worker.launch_args import refused_arguments

DYNAMIC = ROOT / "tests" / "fixtures" / "dynamic"
CPU_ONLY = ROOT / "tests" / "fixtures" / "dynamic_cpu"


class _Kernel:
    """What the screen reads of a JITFunction / InterpretedFunction: its Python function."""

    def __init__(self, fn):
        self.fn = fn


def _constexpr_kernel(X: tl.constexpr):
    pass


def _plain_kernel(x):
    pass


def _defaulted_kernel(x, T: tl.constexpr = torch):
    pass


class _Mode(enum.IntEnum):
    SUM = 1


class _Scheming(enum.IntEnum):
    SUM = 1

    def run(self):
        return torch.ones(1)


class _Int(int):
    pass


class _Pair(NamedTuple):
    a: int
    b: int


class _ScheminPair(NamedTuple):  # a namedtuple with a method of its own
    a: int

    def run(self):
        return torch.ones(1)


_Legacy = collections.namedtuple("_Legacy", ["x", "y"])


@triton.jit
def _jit_helper(x):
    return x


ACCEPTED_CONSTEXPRS = [None, True, 3, 1.5, "gelu", tl.float16, torch.float16, tl.constexpr(3),
                       _jit_helper, (16, 32, (2, 4)), np.float32(0.5), np.int64(7), _Mode.SUM,
                       tl.maximum, tl.pointer_type(tl.float32), _Pair(16, 32), _Legacy(1, 2.0)]
REFUSED_CONSTEXPRS = [torch.ones(2), torch, lambda v: v, {"a": 1}, [1, 2], _Int(3),
                      _Scheming.SUM, tl.constexpr(torch.ones(1)), (16, torch.ones(1)), os,
                      _Kernel, object(), np.ones(3), _ScheminPair(1), _Pair(1, torch.ones(1))]


def _id(value: object) -> str:
    """repr without the object's address: ids must match across pytest-xdist's workers."""
    import re

    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


@pytest.mark.parametrize("value", ACCEPTED_CONSTEXPRS, ids=_id)
def test_compile_time_values_pass_as_constexprs(value):
    assert refused_arguments(_Kernel(_constexpr_kernel), (value,), {}) == []


@pytest.mark.parametrize("value", REFUSED_CONSTEXPRS, ids=lambda v: type(v).__name__)
def test_host_objects_are_refused_as_constexprs(value):
    [line] = refused_arguments(_Kernel(_constexpr_kernel), (), {"X": value})
    assert line.startswith("_constexpr_kernel: constexpr argument X is ") and \
        "host object" in line


def test_runtime_arguments_follow_tritons_own_launcher():
    plain = _Kernel(_plain_kernel)
    for value in (torch.ones(3), 7, 2.5, True, None, (torch.ones(2), 3), tl.constexpr(4),
                  _jit_helper):
        assert refused_arguments(plain, (value,), {}) == [], value
    for value in (torch, {"a": 1}, [torch.ones(2)], "gelu", lambda: 0,
                  (torch.ones(2), torch), tl.constexpr(torch)):
        [line] = refused_arguments(plain, (value,), {})
        assert line.startswith("_plain_kernel: argument x is "), line


def test_a_host_object_default_is_refused_too():
    [line] = refused_arguments(_Kernel(_defaulted_kernel), (torch.ones(1),), {})
    assert "constexpr argument T is the module torch" in line


def test_launch_options_are_not_arguments():
    assert refused_arguments(_Kernel(_constexpr_kernel), (3,), {"num_warps": 4,
                                                                 "num_stages": 2}) == []


_LAUNCH = textwrap.dedent('''
    import importlib.util, json, os, sys
    screened = sys.argv[2] == "screened"
    if screened:
        from kgb.worker.interpreter_fixes import apply
        apply()
        from kgb.worker.evidence import LaunchCounter
        counter = LaunchCounter(sys.argv[1])
        counter.install()
    import torch
    spec = importlib.util.spec_from_file_location("candidate", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    sys.modules["candidate"] = module
    spec.loader.exec_module(module)
    a, b = torch.randn(5, 3), torch.randn(3, 4)
    try:
        c = module.run(a, b)
        outcome = "right" if torch.allclose(c, a @ b, atol=1e-5) else "wrong"
    except TypeError as exc:
        outcome = "refused: " + str(exc)
    print(json.dumps({"outcome": outcome, "marker": os.path.exists(module.MARKER)
                      if hasattr(module, "MARKER") else None,
                      "evidence": counter.launch_evidence() if screened else None}))
''')


def _launch(fixture: str, mode: str, cwd, interpret: bool = True) -> dict:
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": str(cwd), "TRITON_DEFAULT_FP_FUSION": "1"}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    path = DYNAMIC / fixture if (DYNAMIC / fixture).exists() else CPU_ONLY / fixture
    done = subprocess.run([sys.executable, "-c", _LAUNCH, str(path), mode],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_torch_module_as_a_constexpr_is_refused_before_its_body_runs(tmp_path):
    """Unscreened, the interpreter runs the body: the marker file appears and T.matmul
    answers. Screened (as in kgb's worker), the launch raises before the body runs: no
    marker, and the refusal is evidence the candidate cannot take back by catching it."""
    bare, screened = tmp_path / "bare", tmp_path / "screened"
    bare.mkdir()
    screened.mkdir()
    before = _launch("d207_torch_module_as_constexpr.py", "bare", bare)
    assert before == {"outcome": "right", "marker": True, "evidence": None}
    after = _launch("d207_torch_module_as_constexpr.py", "screened", screened)
    assert after["outcome"].startswith("refused: kgb refused this launch") and \
        after["marker"] is False
    assert "_matmul: constexpr argument T is the module torch (a host object: no compiled " \
           "kernel can take it)" in after["evidence"]["host_arguments"]


def test_compiled_launches_are_screened_before_they_compile(tmp_path):
    """Without the interpreter (the GPU's path) the same launch is refused by the screen,
    before Triton's code generator could evaluate the module's attributes; this machine has
    no GPU, so an honest launch fails later, in Triton's driver, not in the screen."""
    after = _launch("d207_torch_module_as_constexpr.py", "screened", tmp_path, interpret=False)
    assert after["outcome"].startswith("refused: kgb refused this launch")
    assert after["marker"] is False


def test_pytorch_inside_an_interpreted_body_is_evidence_and_the_interpreters_own_is_not(
        tmp_path):
    via_module = _launch("d207_pytorch_in_kernel_body_via_module.py", "screened", tmp_path)
    assert via_module["outcome"] == "right"  # it computes: only the evidence can reject it
    ops = via_module["evidence"]["kernel_body_ops"]
    assert {op.split(" ")[0] for op in ops} == {"mm", "copy_"}, ops
    assert all("in kernel _matmul (from " in op for op in ops)
    honest = _launch("passed_matmul_host_derived_constexprs.py", "screened", tmp_path)
    assert honest == {"outcome": "right", "marker": None,
                      "evidence": {"host_arguments": [], "kernel_body_ops": []}}


_BF16_AND_LIBDEVICE = textwrap.dedent('''
    import json, sys
    from kgb.worker.interpreter_fixes import apply
    apply()
    from kgb.worker.evidence import LaunchCounter
    counter = LaunchCounter(__file__)
    counter.install()
    import torch, triton, triton.language as tl
    from triton.language.extra import libdevice

    @triton.jit
    def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr, DT: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        y = libdevice.tanh((x * 2 + 1).to(tl.float32)).to(DT)
        tl.store(y_ptr + offs, tl.maximum(y, tl.cumsum(y, 0)), mask=offs < n)

    seen = []
    for dt, tdt in ((torch.float32, tl.float32), (torch.bfloat16, tl.bfloat16),
                    (torch.float16, tl.float16)):
        x = torch.randn(10).to(dt)
        y = torch.empty_like(x)
        counter.reset()
        k[(2,)](x, y, 10, BLOCK=16, DT=tdt)
        seen.append(counter.launch_evidence())
    print(json.dumps(seen))
''')


def test_the_interpreters_repairs_are_not_pytorch_in_a_kernel_body(tmp_path):
    """kgb's repairs compute bf16 rounding and libdevice with torch inside the launch; Triton's
    interpreter copies arguments with torch: none of it is the candidate's."""
    program = tmp_path / "repairs.py"
    program.write_text(_BF16_AND_LIBDEVICE)
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env={"TRITON_INTERPRET": "1",
                                                      "PATH": "/usr/bin:/bin",
                                                      "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == \
        [{"host_arguments": [], "kernel_body_ops": []}] * 3


@pytest.mark.parametrize("field, says", [("host_arguments", "a launch passed a host object"),
                                         ("kernel_body_ops", "PyTorch ran inside a kernel body")])
def test_the_trusted_side_rejects_either_evidence_with_d207(field, says):
    """Whatever came of the call (it raised on the refused launch, or returned a right
    answer), the evidence decides: D207, before any other rule."""
    from kgb import protocol as P
    from kgb.runner.verdict import rule_broken

    for status in (P.CaseStatus.RAISED, P.CaseStatus.RETURNED):
        record = P.CallRecord(0, P.CallKind.PRIMARY, status, **{field: ("_mm: evidence",)},
                              torch_ops=("mm",))
        rule, why = rule_broken(record)
        assert rule.id == "D207" and why == f"{says}: _mm: evidence"
    assert rule_broken(P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RETURNED, launches=1)) \
        is None


def test_rewriting_a_kernels_annotations_after_a_launch_does_not_slip_past_the_screen():
    def kernel(x, T):
        pass

    screened = _Kernel(kernel)
    assert refused_arguments(screened, (torch.ones(1), torch.ones(1)), {}) == []
    kernel.__annotations__["T"] = tl.constexpr  # now the interpreter hands T to the body as is
    [line] = refused_arguments(screened, (torch.ones(1), torch.ones(1)), {})
    assert "constexpr argument T is a torch.Tensor" in line
    kernel.__defaults__ = (torch,)
    assert any("argument T is the module torch" in line
               for line in refused_arguments(screened, (torch.ones(1),), {}))


@pytest.mark.slow
def test_pytorch_in_an_interpreted_body_is_rejected_end_to_end(tmp_path):
    """The CPU-only fixture through `kgb verify` with layer 1 off (it passed before the body
    watch): rejected D207, the op and the kernel named."""
    from kgb.suite.corpus import load, run_corpus

    rows = {r["kernel"]: r for r in run_corpus(load([CPU_ONLY]), tmp_path, device="cpu",
                                                 sandbox="process", static=False, honest=False)}
    assert all(r["ok"] and r["rule"] == "D207" for r in rows.values()), rows
    row = rows["d207_pytorch_in_kernel_body_via_module.py"]
    assert "PyTorch ran inside a kernel body" in row["message"] and "_matmul" in row["message"]
    direct = rows["d207_grid_executor_called_directly.py"]  # past the launcher: refused
    assert "GridExecutor directly" in direct["message"]
