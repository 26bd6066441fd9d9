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
  over 1024 on the GPU are batch or elementwise dims: a crude scan flags 376 of 456 tasks).
  kgb.suite.regimes reads it off each task's reference (an output element that moves when an
  input's first and when its last element along a dim change needs that dim whole), and every
  task's CPU shapes must cross one block along each such dim wherever a GPU shape does. What a
  seed decides is invisible to it and named here (SEED_DECIDED); the dims reasoned by hand in
  session 32 are held as what it must see (docs/decisions.md, "CPU regimes")."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from conftest import ROOT

os.environ.setdefault("TRITON_INTERPRET", "1")  # the kernels run on the CPU here

from kgb.suite import quality as Q
from kgb.suite.regimes import BLOCK, find_regimes, short_dims
from kgb.tasks.loader import load_suite, load_task

FIXTURES = ROOT / "tests" / "fixtures" / "regimes"
# task id -> (task folder, the kernel honest only within one block)
CHEATS = {
    "optimizer.adafactor": ("Optimizer/adafactor", "adafactor_one_block.py"),
    "random.randperm": ("Random/randperm", "randperm_one_block.py"),
    "random.shuffle_rows": ("Random/shuffle_rows", "shuffle_rows_one_block.py"),
    "index.sort_rows": ("Index/sort_rows", "sort_rows_one_block.py"),
}

# What a seed decides moves nothing when one input element changes, so kgb.suite.regimes cannot
# see it: a dropout2d channel's one decision covers all of L, a permutation's all of N. Named
# here, reasoned per task (task id -> dims).
SEED_DECIDED: dict[str, tuple[str, ...]] = {
    "random.randperm": ("N",),
    "random.shuffle_rows": ("N",),
    "random.dropout2d": ("L",),
}
# Reasoned through by hand in session 32 (each a reduction, scan or sort along the dims named):
# the finder must see every one of them.
REASONED: dict[str, tuple[str, ...]] = {
    "optimizer.adafactor": ("M", "N"),  # column sums over M, row sums over N
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
    "index.sort_rows": ("N",),
    "index.argsort_desc": ("N",),
    "optimizer.muon": ("N",),  # X @ X^T summed over N
    "matmul.matmul": ("K",),
    # seen only by the pair 9 apart around the middle (their ends share no output)
    "matmul.jagged_jagged_bmm": ("T",),  # sums over each jagged segment of T
    "fusion.sliding_window_attention": ("S",),  # a window of keys along S
}
# Never a regime: elementwise, gathers, resampling and windows (a few neighbours along H, W, L).
NO_REGIME = ("activation.relu", "index.gather", "index.embedding", "pooling.max_pool2d",
             "pooling.avg_pool1d", "convolution.depthwise_conv2d",
             "spatial.upsample_nearest2d_size", "spatial.upsample_bilinear2d", "spatial.roll")
# Regime dims no CPU shape reaches, left with the reason (strict: fixing one fails here until it
# leaves this list).
KNOWN_GAPS: dict[str, str] = {}


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


@pytest.mark.parametrize("task_id", sorted(SEED_DECIDED))
def test_seed_decided_dims_cross_one_block_where_a_gpu_shape_does(suite, task_id):
    assert task_id in suite  # a renamed task must not drop out of the list silently
    assert short_dims(suite[task_id], SEED_DECIDED[task_id]) == ()


@pytest.mark.parametrize("task_id", sorted(REASONED))
def test_the_finder_sees_every_regime_reasoned_by_hand(suite, task_id):
    assert set(REASONED[task_id]) <= set(find_regimes(suite[task_id]).dims)


@pytest.mark.parametrize("task_id", NO_REGIME)
def test_the_finder_sees_no_regime_in_elementwise_gathers_resampling_and_windows(suite, task_id):
    assert find_regimes(suite[task_id]).dims == ()


def test_a_task_whose_cpu_shapes_stop_short_of_a_regime_is_named(tmp_path, suite):
    """matmul without its CPU shapes over one block along K: K is short, as it was before."""
    task = suite["matmul.matmul"]
    assert find_regimes(task).short == ()
    long_k = [s.name for s in task.shapes if not s.gpu_only and s.as_dict()["K"] > BLOCK]
    assert long_k, "matmul has no CPU shape over one block along K"
    copy = tmp_path / "matmul"
    shutil.copytree(task.folder, copy)
    blocks = re.split(r"(?=^\[)", (copy / "task.toml").read_text(), flags=re.M)
    (copy / "task.toml").write_text("".join(
        b for b in blocks if not any(f'name = "{n}"' in b for n in long_k)))
    assert find_regimes(load_task(copy)).short == ("K",)


TASK_IDS = sorted(p.parent.parent.name + "/" + p.parent.name
                  for p in (ROOT / "tasks").glob("*/*/task.toml"))


@pytest.mark.parametrize("folder", TASK_IDS)
def test_every_task_reaches_its_regimes_on_the_cpu(folder):
    """kgb.suite.regimes over the whole suite: every dim along which an output element needs
    its input whole, over one block on some GPU shape, is over one block on some CPU shape."""
    task = load_task(ROOT / "tasks" / folder)
    found = find_regimes(task)
    if task.id in KNOWN_GAPS:
        assert found.short, f"{task.id} reaches its regimes now: take it out of KNOWN_GAPS"
        pytest.xfail(KNOWN_GAPS[task.id])
    assert found.short == (), found.why


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


def test_the_finder_takes_an_id_or_a_folder_and_a_bad_one_is_one_line(capsys, monkeypatch):
    from kgb.suite.regimes import main

    monkeypatch.chdir(ROOT)  # ids are looked up in ./tasks

    assert main(["no_such.task"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no_such.task" in err and "Traceback" not in err
    assert main(["activation.relu", str(ROOT / "tasks" / "Activation" / "relu")]) == 0
    out = capsys.readouterr().out
    assert out.count("activation.relu: ") == 2 and "2 tasks, 0 with" in out
