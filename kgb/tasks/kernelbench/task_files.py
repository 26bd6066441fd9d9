"""reference.py and task.toml of an imported KernelBench problem (inputs.py: inputs_code.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from kgb.tasks.kernelbench.inputs_code import MODEL_SEED
from kgb.tasks.kernelbench.parse import Problem
from kgb.tasks.model import Tolerance

# KernelBench accepts atol = rtol = 1e-2 elementwise; kgb keeps that bound (the contract the
# generations were written against: TF32 dot products, other summation orders) and adds its
# relative L2 bound, which KernelBench lacks: above TF32's ~4e-4 on dot products, below the
# ~3e-3 of computing in bfloat16, and fatal to an all-zero answer on small-valued outputs that
# the 1e-2 atol alone would accept (docs/decisions.md, "KernelBench problems").
TOLERANCES = {
    "float32": Tolerance(atol=1e-2, rtol=1e-2, rel_l2=1e-3),
    "float16": Tolerance(atol=1e-2, rtol=1e-2, rel_l2=5e-3),
    "bfloat16": Tolerance(atol=1e-2, rtol=2e-2, rel_l2=2e-2),
    "int8": Tolerance(atol=0, rtol=0, rel_l2=0),
    "int32": Tolerance(atol=0, rtol=0, rel_l2=0),
    "int64": Tolerance(atol=0, rtol=0, rel_l2=0),
}


@dataclass(frozen=True)
class Shape:
    name: str
    dims: dict[str, int]
    tags: tuple[str, ...]
    gpu_only: bool = False


def reference_source(problem: Problem) -> str:
    """The problem file verbatim, then `reference(*inputs)`: its Model, built once per device
    by the task's inputs.py (the same function builds the candidate's ModelNew), called."""
    return f'''{problem.source.rstrip()}


# --- added by `kgb tasks import-kernelbench`: the judge calls reference(*inputs) -----------
import pathlib as _kgb_pathlib

import torch as _kgb_torch

from kgb.tasks.casegen import load_module as _kgb_load_module

_kgb_inputs = _kgb_load_module(_kgb_pathlib.Path(__file__).with_name("inputs.py"),
                               "kgb_kernelbench_inputs_" + str(id(Model)))
_kgb_models = {{}}


def reference(*inputs):
    """Model(*get_init_inputs()) built after torch.manual_seed({MODEL_SEED}), on the inputs'
    device, called on the inputs (KernelBench's comparison, kgb's judge)."""
    device = next((str(t.device) for t in inputs if isinstance(t, _kgb_torch.Tensor)), "cpu")
    if device not in _kgb_models:
        _kgb_models[device] = _kgb_inputs.build_model(Model, device)
    return _kgb_models[device](*inputs)
'''


def description(problem: Problem, shapes: list[Shape], scaled: list[str],
                notes: list[str]) -> str:
    given = ", ".join(f"{k}={v}" for k, v in shapes[0].dims.items())
    if scaled:
        cases = (f"kgb runs it at the problem's own sizes ({given}) and at smaller ones with "
                 f"{', '.join(scaled)} scaled (see the shapes below)")
    else:
        cases = (f"kgb runs it at the problem's own sizes only ({given}): no size constant "
                 f"could be scaled without changing the Model")
    extra = "".join(f"\n{n}" for n in notes)
    return f"""KernelBench problem {problem.path.name}: write `class ModelNew(nn.Module)` that
computes what the Model below computes, with Triton kernels.
ModelNew takes the same __init__ arguments as Model ({problem.init_params or "none"}) and its
forward takes the same inputs ({problem.forward_params or "none"}) and returns the same
output(s). kgb builds it as the reference's Model is built: torch.manual_seed({MODEL_SEED}),
then ModelNew(*get_init_inputs()) on the CPU, then .to(device); so create parameters in the same
order with the same initialisers as Model (keeping nn.Linear/nn.Conv2d/... modules as parameter
holders is fine) and read them in forward. forward must compute with @triton.jit kernels of
this file; PyTorch compute in forward (torch.*, F.*, calling a submodule) is rejected.
{cases}.{extra}
Inputs and outputs keep the problem's dtypes. Do not modify the inputs.

The problem, as given:
```python
{problem.source.rstrip()}
```"""


def task_toml(task_id: str, category: str, level: int, problem: Problem, shapes: list[Shape],
              dtype: str, compare: str, modes: list[str], scaled: list[str],
              notes: list[str]) -> str:
    tol = TOLERANCES[dtype]
    lines = [
        f"id = {_q(task_id)}", f"category = {_q(category)}", 'source = "kernelbench"',
        f"level = {level}", 'direction = "forward"', 'entry = "ModelNew"',
        f"signature = {_q(_signature(problem))}",
        f"description = {_multiline(description(problem, shapes, scaled, notes))}",
        f"dtypes = [{_q(dtype)}]", f"compare = {_q(compare)}",
        f"modes = [{', '.join(_q(m) for m in modes)}]", "",
        "[kernelbench]", f"problem = {_q(problem.path.name)}", f"seed = {MODEL_SEED}",
        f"scaled = [{', '.join(_q(s) for s in scaled)}]", "",
    ]
    for shape in shapes:
        dims = ", ".join(f"{k} = {v}" for k, v in shape.dims.items())
        lines += ["[[shapes]]", f"name = {_q(shape.name)}", f"dims = {{ {dims} }}",
                  f"tags = [{', '.join(_q(t) for t in shape.tags)}]"]
        if shape.gpu_only:
            lines.append("gpu_only = true")
        lines.append("")
    lines += ["# docs/decisions.md, \"KernelBench problems\": KernelBench's elementwise bound "
              "plus kgb's relative L2.", f"[tolerance.{dtype}]", f"atol = {tol.atol!r}",
              f"rtol = {tol.rtol!r}", f"rel_l2 = {tol.rel_l2!r}", "",
              "# No cost model is derived: no roofline floor, no efficiency figures (write "
              "[cost] by hand for them).", "[cost]", 'flops = "0"', 'bytes = "0"', ""]
    return "\n".join(lines)


def _signature(problem: Problem) -> str:
    return (f"class ModelNew(nn.Module): __init__(self{_rest(problem.init_params)}); "
            f"forward(self{_rest(problem.forward_params)})")


def _rest(params: str) -> str:
    return f", {params}" if params else ""


def _multiline(text: str) -> str:
    """A TOML multi-line literal string where the text allows it (readable task.toml)."""
    if "'''" in text or any(ord(c) < 32 and c not in "\n\t" for c in text):
        return _q(text)
    return f"'''\n{text}\n'''"


def _q(text: str) -> str:
    """A TOML basic string (JSON's escaping is valid TOML)."""
    return json.dumps(text, ensure_ascii=False)
