"""random.dropout2d's CPU shapes (issue 27, session 29): cheap in the interpreter yet reaching
every regime of its GPU shapes, still deciding what they must (Weyl, LCG and value-keyed channel
fields fail; every degenerate answer fails on every non-tiny case; the solution and torch's own
channel dropout pass), and the solution's channel tiles compile for a Hopper GPU.

Before: one program per channel cost ~6.5 ms of interpreter CPU a channel, and the 4096- and
3700-channel CPU shapes made the task's pipeline check ~1600 s of CPU (it timed out waiting for
a CPU at load 20-80); docs/tasks.md, "dropout2d's CPU shapes"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest
import torch
from conftest import ROOT

os.environ.setdefault("TRITON_INTERPRET", "1")  # the solution runs on the CPU here

from kgb.suite import quality as Q
from kgb.tasks.casegen import load_module, make_generator
from kgb.tasks.loader import load_task

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "random"))
import generators as G

FOLDER = ROOT / "tasks" / "Random" / "dropout2d"
BLOCK = 1024  # the solution's (and a typical kernel's) longest block along L


@pytest.fixture(scope="module")
def task():
    return load_task(FOLDER)


def _channels(shape) -> int:
    d = shape.as_dict()
    return d["B"] * d["C"]


def test_cpu_shapes_are_cheap_and_reach_every_gpu_regime(task):
    cpu = [s for s in task.shapes if not s.gpu_only]
    gpu = [s for s in task.shapes if s.gpu_only]
    assert {t for s in task.shapes for t in s.tags} == {
        "tiny", "small", "medium", "large", "pow2", "non-pow2", "rectangular", "square"}
    assert any("tiny" in s.tags for s in cpu) and any("non-pow2" in s.tags for s in cpu)
    # cost: a kernel with one program per channel pays per channel in the interpreter
    assert max(_channels(s) for s in cpu) <= 1100 and sum(_channels(s) for s in cpu) <= 4000
    ls = [s.as_dict()["L"] for s in cpu]
    for g in gpu:
        L = g.as_dict()["L"]
        if L > BLOCK:  # several blocks a channel, a partial last one
            assert any(x > BLOCK and x % BLOCK for x in ls), g.name
        elif L & (L - 1):  # one masked block
            assert any(x < BLOCK and x & (x - 1) for x in ls), g.name
    # channel counts that fill no tile evenly, and B, C odd
    assert any(_channels(s) % 2 and s.as_dict()["C"] % 2 for s in cpu)


def _kept(task, dims: dict, seed: int, dtype: str, field) -> tuple:
    inputs = load_module(FOLDER / "inputs.py", "kgb_d2d_inputs").make_inputs(
        dims, dtype, make_generator("cpu", seed), "standard")
    x, p, s = inputs
    u = field(x, s).reshape(x.shape[0], x.shape[1], 1)
    out = torch.where(u >= p, (x.float() / (1 - p)).to(x.dtype), torch.zeros_like(x))
    return (out,), inputs


@pytest.mark.parametrize("kind", ["honest", "weyl", "lcg", "value-keyed"])
def test_every_thousand_channel_cpu_shape_decides_the_channel_field(task, kind):
    reference = load_module(FOLDER / "reference.py", "kgb_d2d_reference")
    fields = {
        "honest": lambda x, s: G.honest(x.shape[0] * x.shape[1], s),
        "weyl": lambda x, s: G.weyl(x.shape[0] * x.shape[1], s),
        "lcg": lambda x, s: G.lcg(x.shape[0] * x.shape[1], s),
        "value-keyed": lambda x, s: G.value_keyed(x[:, :, 0], s),
    }
    shapes = [s for s in task.shapes if not s.gpu_only and _channels(s) >= 1000]
    assert len(shapes) >= 3
    for shape in shapes:
        for seed in (1, 2):
            outputs, inputs = _kept(task, shape.as_dict(), seed, "bfloat16", fields[kind])
            problems = reference.check(outputs, inputs)
            assert (problems == []) == (kind == "honest"), (shape.name, seed, problems)


def test_degenerate_answers_fail_every_case_and_the_solution_passes(task):
    Q.prepare_interpreter()
    probe = Q.TaskProbe(task)
    solution = load_module(FOLDER / "solution.py", "kgb_d2d_solution")
    cases = [c for c in Q._cases(task, all_shapes=True)
             if "tiny" not in c.shape.tags and (c.mode == "standard" or c.layout != "contiguous")
             and c.dtype in ("float32", "bfloat16")]
    assert {c.shape.name for c in cases} == {s.name for s in task.shapes
                                             if not s.gpu_only and "tiny" not in s.tags}
    for case in cases:
        inputs = probe.make(case)
        ref = probe.expected(inputs)
        assert probe.judge(ref, inputs, case.dtype) is None, case.id  # torch's channel dropout
        got = solution.run(*inputs)
        assert probe.judge([got], inputs, case.dtype) is None, case.id
        other = probe.expected(probe.make(replace(case, seed=case.seed + 1)))
        for name, mutate in Q.MUTANTS.items():
            outputs = mutate(ref, inputs, other)
            if outputs is None or (name == "bfloat16-rounded" and case.dtype != "float32"):
                continue
            assert probe.judge(outputs, inputs, case.dtype) is not None, (case.id, name)


_COMPILE = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = importlib.util.spec_from_file_location("d2d", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
done = []
for ptr, bc, bl in (("*fp32", 4, 1024), ("*bf16", 1024, 4), ("*fp16", 128, 32)):
    sig = {"x_ptr": ptr, "out_ptr": ptr, **{k: "i32" for k in ("n_ch", "C", "L", "sx_b", "sx_c",
           "sx_l", "seed")}, "p": "fp32", "scale": "fp32", "BLOCK_C": "constexpr",
           "BLOCK_L": "constexpr"}
    c = triton.compile(ASTSource(m._dropout2d_kernel, sig, constexprs={"BLOCK_C": bc,
                                 "BLOCK_L": bl}), target=GPUTarget("cuda", 90, 32))
    done.append("st.global" in c.asm["ptx"])
print(json.dumps(done))
"""


def test_the_channel_tiles_compile_for_a_hopper_gpu():
    # the GPU shapes' tiles (L 3136 and 1001: 4 x 1024) and the CPU shapes' short channels
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", _COMPILE, str(FOLDER / "solution.py")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [True, True, True]
