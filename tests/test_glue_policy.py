"""Threat 32, glue that is the answer: a task's glue policy (task.toml `glue`). On a re-layout
task ("views") a PyTorch copy of tensor data is compute: the worker records copies on every task
as their own evidence, the trusted rule (D206) decides by the policy, and the static layer
forbids the copy methods it can see. Honest kernels that read strides pass; a `.contiguous()`
of an input that is already contiguous copies nothing and is no evidence."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import torch
from conftest import ROOT

from kgb import protocol as P
from kgb.anticheat.static import analyze_file
from kgb.errors import TaskError
from kgb.runner.verdict import rule_broken
from kgb.tasks.loader import load_suite, load_task
from kgb.tasks.spec import render_spec
from kgb.worker.evidence import DispatchTrace

ROLL = ROOT / "tasks/SpatialOps/roll"


def _traced(fn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    trace = DispatchTrace()
    trace.start()
    try:
        fn()
    finally:
        ops = trace.stop()
    return ops, tuple(sorted(trace.copies))


def test_the_trace_records_copies_apart_from_compute():
    x = torch.randn(4, 6)
    out = torch.empty(6, 4)
    assert _traced(lambda: x.contiguous()) == ((), ())  # contiguous already: no copy
    assert _traced(lambda: x.t().contiguous()) == ((), ("clone",))
    assert _traced(lambda: x.t().reshape(-1)) == ((), ("clone",))
    assert _traced(lambda: out.narrow(0, 0, 3).copy_(x.t()[:3])) == ((), ("copy_",))
    assert _traced(lambda: out.__setitem__(slice(None), x.t())) == ((), ("copy_",))
    assert _traced(lambda: out.fill_(x[0, 0])) == ((), ("fill_",))  # a fill from a tensor
    assert _traced(lambda: out.fill_(2.0)) == ((), ())  # a fill with a constant moves no data
    # Host data made a tensor is compute on every task (a numpy answer comes back that way).
    assert _traced(lambda: torch.tensor([x[0, 1], x[2, 3]])) == (("lift_fresh",),
                                                                  ("lift_fresh",))
    ops, copies = _traced(lambda: x * 2)
    assert ops == ("mul",) and copies == ()


def _record(**evidence) -> P.CallRecord:
    return P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RETURNED,
                        output_types=(P.PLAIN_TENSOR,), launches=1, **evidence)


def test_the_trusted_rule_decides_copies_by_the_task_policy():
    copied = _record(copy_ops=("clone",))
    rule, why = rule_broken(copied, "views") or (None, "")
    assert rule is not None and rule.id == "D206"
    assert "copied tensor data with PyTorch (clone)" in why and 'glue = "views"' in why
    assert rule_broken(copied, "copies") is None  # the default: copies are glue
    assert rule_broken(_record(), "views") is None  # a kernel that reads strides itself


def test_plan_records_without_a_glue_field_read_as_copies():
    """Job folders written before the field existed regrade as they were graded."""
    plan = P.loads(P.PlanRecord, '{"task_id": "t", "category": "Math", "kernel_file": null, '
                                 '"slot": "cpu", "timeout_s": 1, "cases": []}', "plan.json")
    assert plan.glue == "copies"


KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def run(x, shift_h, shift_w):
    staged = {staged}
    out = torch.empty_like(staged)
    _copy[(triton.cdiv(out.numel(), 256),)](staged, out, out.numel(), BLOCK=256)
    return out
'''


@pytest.mark.parametrize("staged", ["x.clone()", "torch.empty_like(x).copy_(x)",
                                    "torch.Tensor.clone(x)"])
def test_the_static_layer_forbids_copy_methods_on_a_views_task(tmp_path, staged):
    kernel = tmp_path / "k.py"
    kernel.write_text(KERNEL.format(staged=staged))
    rules = {f.rule for f in analyze_file(kernel, load_task(ROLL))}
    assert "S114" in rules
    copies_task = tmp_path / "roll"
    shutil.copytree(ROLL, copies_task)
    toml = copies_task / "task.toml"
    toml.write_text(re.sub(r"^glue = .*$", "", toml.read_text(), flags=re.M))
    assert "S114" not in {f.rule for f in analyze_file(kernel, load_task(copies_task))}


def test_the_static_layer_leaves_contiguous_and_views_to_the_trace(tmp_path):
    """`.contiguous()` of a contiguous input copies nothing (honest libraries call it on every
    input): the static layer cannot tell, the dispatch trace can."""
    kernel = tmp_path / "k.py"
    kernel.write_text(KERNEL.format(staged="x.contiguous().view(x.shape)"))
    assert analyze_file(kernel, load_task(ROLL)) == []


def test_the_glue_field_is_validated_and_shown_to_generators(tmp_path):
    folder = tmp_path / "roll"
    shutil.copytree(ROLL, folder)
    toml = folder / "task.toml"
    toml.write_text(re.sub(r'^glue = .*$', 'glue = "none"', toml.read_text(), flags=re.M))
    with pytest.raises(TaskError, match=r"glue 'none' is not one of copies, views"):
        load_task(folder)
    assert "host code may not copy tensor data" in render_spec(load_task(ROLL))
    assert "may not copy" not in render_spec(load_task(ROOT / "tasks/Math/addcmul"))


def _audit_table() -> dict[str, str]:
    """docs/tasks.md's glue audit: task id -> policy."""
    text = (ROOT / "docs/tasks.md").read_text()
    section = text[text.index("## Glue policy"):]
    return {m.group(1): m.group(2)
            for m in re.finditer(r"^\| `([\w.]+)` \| `(copies|views)` \|", section, re.M)}


def test_every_views_task_is_in_the_audit_table_with_its_policy():
    table = _audit_table()
    views = {t.id for t in load_suite(ROOT / "tasks").values() if t.glue == "views"}
    assert views and views <= set(table)
    suite = load_suite(ROOT / "tasks")
    stale = {tid: policy for tid, policy in table.items()
             if tid not in suite or suite[tid].glue != policy}
    assert not stale, f"docs/tasks.md's glue table disagrees with task.toml: {stale}"


def test_views_tasks_have_a_stride_reading_solution():
    """A views task's own solution must not copy its inputs: every solution of one is free of
    the copy methods statically (`kgb suite check` runs each through the dispatch trace)."""
    for task in load_suite(ROOT / "tasks").values():
        if task.glue == "views":
            findings = analyze_file(Path(task.solution_path), task)
            assert findings == [], (task.id, findings)
