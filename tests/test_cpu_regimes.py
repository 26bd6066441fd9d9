"""CPU shapes that reach every regime of the GPU shapes (issue 27, issue 13's bar; design.md,
"Shape categories"): a kernel honest only up to one fixed block along the axis it reduces or
permutes must fail some CPU case, or the CPU run passes what the GPU run fails (seen: zeros for
rows >= 16384 passed softmax's CPU run).

- Three such kernels (tests/fixtures/regimes), each the suite's own approach with one
  1024-wide block a row and no loop over the rest, passed every CPU case of their tasks before
  the `long-rows` shapes were added (optimizer.adafactor's row sums over N <= 1024;
  random.randperm and random.shuffle_rows permuting rows of <= 1000): each now fails exactly
  the `long-rows` cases, and the suite's solution passes them.
- Which dimension changes a kernel's regime is the task's semantics, not its shapes (most dims
  over 1024 on the GPU are batch or elementwise dims: a crude scan flags 376 of 456 tasks), so
  no general rule is honest; REGIME_DIMS names, per task reasoned through, the dims a kernel
  reduces or permutes along, and holds every one of them over one block on the CPU wherever a
  GPU shape is (docs/decisions.md, "CPU regimes")."""

from __future__ import annotations

import os
import shutil

import pytest
from conftest import ROOT

os.environ.setdefault("TRITON_INTERPRET", "1")  # the kernels run on the CPU here

from kgb.suite import quality as Q
from kgb.tasks.loader import load_suite, load_task

BLOCK = 1024  # the longest block a typical kernel takes along one axis
FIXTURES = ROOT / "tests" / "fixtures" / "regimes"
# task id -> (task folder, the kernel honest only within one block)
CHEATS = {
    "optimizer.adafactor": ("Optimizer/adafactor", "adafactor_one_block.py"),
    "random.randperm": ("Random/randperm", "randperm_one_block.py"),
    "random.shuffle_rows": ("Random/shuffle_rows", "shuffle_rows_one_block.py"),
    "index.sort_rows": ("Index/sort_rows", "sort_rows_one_block.py"),
}

# task id -> the dims a kernel reduces, scans or permutes along (a fixed block with no loop
# over them is the cheat); batch and elementwise dims are left out on purpose.
REGIME_DIMS: dict[str, tuple[str, ...]] = {
    "optimizer.adafactor": ("M", "N"),  # column sums over M, row sums over N
    "random.randperm": ("N",),
    "random.shuffle_rows": ("N",),
    "random.dropout2d": ("L",),  # a channel's decision covers all of L
    "random.multinomial": ("V",),  # the CDF over the vocabulary
    "random.gumbel_max": ("V",),
    "random.top_k_sampling": ("V",),
    "random.top_p_sampling": ("V",),
    "normalization.softmax": ("N",),
    "normalization.layer_norm": ("N",),
    "normalization.rms_norm": ("N",),
    "loss.cross_entropy": ("C",),
    "reduce.sum_rows": ("N",),
    "reduce.sum_cols": ("M",),
    "reduce.logsumexp_rows": ("N",),
    "reduce.cumsum_rows": ("N",),
    "reduce.argmax_rows": ("N",),
    "index.sort_rows": ("N",),  # long-rows (s32): a one-block sort passed every CPU row <= 1000
    "optimizer.muon": ("N",),  # long-rows (s32): X @ X^T summed over N <= 256 on the CPU
}
# Gaps seen and left to the tasks' owners (not this file's to fix): strict, so fixing one
# fails here until it moves to REGIME_DIMS.
KNOWN_GAPS: dict[str, tuple[str, ...]] = {}


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


def _short_dims(task, dims: tuple[str, ...]) -> list[str]:
    """The dims over one block on some GPU shape and on no CPU shape."""
    cpu = [s.as_dict() for s in task.shapes if not s.gpu_only]
    gpu = [s.as_dict() for s in task.shapes if s.gpu_only]
    assert all(d in s for s in cpu + gpu for d in dims), (task.id, dims)
    return [d for d in dims if max(s[d] for s in gpu) > BLOCK
            and max(s[d] for s in cpu) <= BLOCK]


@pytest.mark.parametrize("task_id", sorted(REGIME_DIMS) + [
    pytest.param(t, marks=pytest.mark.xfail(strict=True, reason="a known CPU regime gap"))
    for t in sorted(KNOWN_GAPS)])
def test_cpu_shapes_cross_one_block_where_a_gpu_shape_does(suite, task_id):
    dims = REGIME_DIMS.get(task_id) or KNOWN_GAPS[task_id]
    assert task_id in suite  # a renamed task must not drop out of the list silently
    assert _short_dims(suite[task_id], dims) == []


def _cases(task):
    """The first dtype's standard contiguous case of every CPU shape."""
    return [c for c in Q._cases(task, all_shapes=True) if c.dtype == task.dtypes[0]
            and c.mode == "standard" and c.layout == "contiguous"]


@pytest.mark.parametrize("task_id", sorted(CHEATS))
def test_a_kernel_honest_within_one_block_fails_only_the_long_rows(tmp_path, task_id):
    folder, cheat = CHEATS[task_id]
    Q.prepare_interpreter()
    copy = tmp_path / folder.split("/")[1]
    shutil.copytree(ROOT / "tasks" / folder, copy)
    shutil.copy(FIXTURES / cheat, copy / "solution.py")
    task = load_task(copy)
    cases = _cases(task)
    assert {c.shape.name for c in cases} == {s.name for s in task.shapes if not s.gpu_only}
    problems = Q.check_solution(Q.TaskProbe(task), cases)
    failed = {c.shape.name for c in cases if any(f"fails {c.id}:" in p.what for p in problems)}
    assert failed == {"long-rows"}, [str(p) for p in problems]
    assert len(problems) == 1, [str(p) for p in problems]  # nothing else (static, D201) found


@pytest.mark.parametrize("task_id", sorted(CHEATS))
def test_the_solution_passes_the_long_rows(task_id):
    Q.prepare_interpreter()
    task = load_task(ROOT / "tasks" / CHEATS[task_id][0])
    cases = [c for c in Q._cases(task, all_shapes=True) if c.shape.name == "long-rows"
             and c.dtype == task.dtypes[0] and c.layout == "contiguous"]
    assert len(cases) == 2  # standard and outlier
    assert Q.check_solution(Q.TaskProbe(task), cases) == []
