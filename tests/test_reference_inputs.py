"""A task's reference and baseline leave the judge's inputs as they were given: the same values
and the same requires_grad flag. The judge computes the float64 truth, the comparison and the
baselines' timings from those very tensors after the reference ran; a reference that writes
`x.float().requires_grad_(True)` flips the flag on a float32 input (`x.float()` is `x`), and one
that writes into an input changes what everything after it sees (docs/tasks.md, "Baselines that
need autograd"). One tiny case per dtype of every task, on the CPU (~5 s CPU for the suite)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from conftest import ROOT

from kgb.suite.quality import TaskProbe, _cases
from kgb.tasks.loader import load_suite, load_task
from kgb.tasks.model import Task


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit equality, NaN equal to itself."""
    a = a.detach()
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        a.contiguous().view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8))


def changed_inputs(task: Task) -> list[str]:
    """What the task's reference() or baseline() changed on its inputs, one line each."""
    probe = TaskProbe(task)  # in-place tasks: the reference as judged (on clones)
    problems, seen = [], set()
    for case in _cases(task, all_shapes=False):
        if case.dtype in seen:
            continue
        seen.add(case.dtype)
        for name in ("reference", "baseline"):
            fn = getattr(probe.reference, name, None)
            if not callable(fn):
                continue
            inputs = probe.make(case)
            given = {i: (v.requires_grad, v.detach().clone()) for i, v in enumerate(inputs)
                     if isinstance(v, torch.Tensor)}
            fn(*inputs)
            for i, (flag, values) in given.items():
                if inputs[i].requires_grad != flag:
                    problems.append(f"{task.id}: {name}() flips requires_grad of input {i} "
                                    f"({case.dtype})")
                elif not _same(inputs[i], values):
                    problems.append(f"{task.id}: {name}() writes into input {i} ({case.dtype})")
    return problems


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


def test_references_and_baselines_leave_their_inputs_as_given(suite):
    problems = [p for task in sorted(suite.values(), key=lambda t: t.id)
                for p in changed_inputs(task)]
    assert problems == []


LINE = "xf = x.detach().float().requires_grad_(True)"


@pytest.mark.parametrize("edit, named", [
    ("xf = x.float().requires_grad_(True)", "flips requires_grad of input 0 (float32)"),
    (LINE + "\n        x.add_(1)", "writes into input 0"),
], ids=["flag", "write"])
def test_a_reference_that_changes_its_input_is_named(tmp_path: Path, edit: str, named: str):
    """The check has power: activation.gelu_backward's reference, edited to either fault."""
    folder = tmp_path / "gelu_backward"
    shutil.copytree(ROOT / "tasks" / "Activation" / "gelu_backward", folder)
    assert changed_inputs(load_task(folder)) == []  # the reference as shipped
    source = (folder / "reference.py").read_text()
    assert LINE in source
    (folder / "reference.py").write_text(source.replace(LINE, edit))
    found = changed_inputs(load_task(folder))
    assert found and all(named in p for p in found), found
