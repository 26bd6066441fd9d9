"""The suite itself: the 16 first-tranche tasks, each valid and well-formed."""

from __future__ import annotations

import pytest

from conftest import ROOT
from kgb.errors import TaskError
from kgb.tasks.loader import load_suite, load_task
from kgb.tasks.cost_model import evaluate

FIRST_TRANCHE = {
    "activation.gelu_tanh", "convolution.conv2d_3x3", "fusion.linear_bias_relu",
    "index.embedding", "linear_algebra.gemv", "loss.cross_entropy", "math.addcmul",
    "matmul.matmul", "normalization.rms_norm", "normalization.softmax",
    "optimizer.adamw_step", "pooling.max_pool2d", "quantization.per_token_int8",
    "random.dropout", "reduce.sum_rows", "spatial.upsample_bilinear2d",
}


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


def test_first_tranche_ids_and_entries(suite):
    assert FIRST_TRANCHE <= set(suite)
    assert all(suite[t].entry == "run" for t in FIRST_TRANCHE)


def test_every_category_is_covered(suite):
    from kgb.tasks.model import CATEGORIES

    assert {t.category for t in suite.values()} == set(CATEGORIES)


@pytest.mark.parametrize("task_id", sorted(FIRST_TRANCHE))
def test_task_is_well_formed(suite, task_id):
    task = suite[task_id]
    tags = {tag for s in task.shapes for tag in s.tags}
    assert {"tiny", "non-pow2"} <= tags
    assert len(task.shapes_for("cpu")) >= 2
    assert task.solution_path.is_file() and task.reference_path.is_file()
    assert task.inputs_path.is_file()
    assert len(task.description) > 40
    for shape in task.shapes:
        values = dict(shape.dims, itemsize=4)
        assert evaluate(task.flops, values) >= 0 and evaluate(task.bytes, values) > 0


# Shape categories a task's problem cannot have (issue 27's bar: all 8 categories otherwise)
IMPOSSIBLE_TAGS = {"linear_algebra.symv": {"rectangular"}}  # its matrix is symmetric: n x n


def test_every_task_has_the_eight_shape_categories_and_cpu_regimes(suite):
    """Issue 13/27's bar, for the whole suite (each tranche's tests checked only its own):
    every shape category, tiny and non-power-of-two CPU shapes, costs for every shape."""
    from test_backward_tasks import SHAPE_TAGS

    short = {}
    for task_id, task in suite.items():
        missing = set(SHAPE_TAGS) - {tag for s in task.shapes for tag in s.tags}
        cpu = task.shapes_for("cpu")
        if not (any("tiny" in s.tags for s in cpu) and any("non-pow2" in s.tags for s in cpu)):
            missing.add("tiny and non-pow2 CPU shapes")
        missing -= IMPOSSIBLE_TAGS.get(task_id, set())
        if missing:
            short[task_id] = sorted(missing)
        for shape in task.shapes:
            values = dict(shape.dims, itemsize=2)
            assert evaluate(task.flops, values) >= 0 and evaluate(task.bytes, values) > 0
    assert not short, short


def test_invalid_task_toml_is_a_clear_error(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "task.toml").write_text('id = "x"\ncategory = "Nope"\n')
    with pytest.raises(TaskError, match="missing key"):
        load_task(folder)
    src = (ROOT / "tasks/Math/addcmul/task.toml").read_text()
    (folder / "reference.py").write_text("")
    (folder / "inputs.py").write_text("")
    (folder / "task.toml").write_text(src.replace('category = "Math"', 'category = "Nope"'))
    with pytest.raises(TaskError, match="category 'Nope'"):
        load_task(folder)
    (folder / "task.toml").write_text(src.replace('flops = "2 * M * N"', 'flops = "2 * Q"'))
    with pytest.raises(TaskError, match="unknown symbol 'Q'"):
        load_task(folder)
    (folder / "task.toml").write_text(src.replace('flops = "2 * M * N"',
                                                  'flops = "__import__(1)"'))
    with pytest.raises(TaskError, match="may only use"):
        load_task(folder)
    (folder / "task.toml").write_text(src.replace('category = "Math"',
                                                  'category = "Math"\nstrict_tolerance = 1'))
    with pytest.raises(TaskError, match="strict_tolerance must be true or false"):
        load_task(folder)


def test_cli_tasks_list_and_show(kgb):
    proc = kgb("tasks", "list", timeout=60)
    assert proc.returncode == 0 and "normalization.rms_norm" in proc.stdout
    proc = kgb("tasks", "show", "normalization.rms_norm", timeout=60)
    assert proc.returncode == 0
    assert "run(" in proc.stdout and "rel_l2" in proc.stdout and "tiny" in proc.stdout
    proc = kgb("tasks", "show", "no.such", timeout=60)
    assert proc.returncode == 2 and "unknown task id 'no.such'" in proc.stderr


def test_cli_rules_lists_runtime_rules(kgb):
    proc = kgb("rules", "--json", timeout=60)
    assert proc.returncode == 0
    import json

    ids = {r["id"] for r in json.loads(proc.stdout)}
    assert {"D201", "D202", "D203", "D204"} <= ids


def test_inputs_file_is_required_and_holds_no_reference(suite, tmp_path):
    """The worker loads inputs.py only: it must exist and must not define the oracle."""
    import ast

    for task in suite.values():
        tree = ast.parse(task.inputs_path.read_text())
        names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        assert "make_inputs" in names and "reference" not in names and "check" not in names, \
            task.id
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                    for a in n.names}
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert imported <= {"torch", "math", "kgb.tasks.inputs"}, (task.id, imported)
    folder = tmp_path / "t"
    import shutil

    shutil.copytree(ROOT / "tasks/Math/addcmul", folder)
    (folder / "inputs.py").unlink()
    with pytest.raises(TaskError, match="inputs.py missing"):
        load_task(folder)


def test_random_tasks_name_their_seed_and_strided_promises_are_planned(suite):
    from kgb.runner.plan import plan_cases

    assert suite["random.dropout"].seed_input == 2
    ids = [c.id for c in plan_cases(suite["reduce.sum_rows"], "cpu", 1)]
    assert "tiny-float32-standard-padded" in ids and "tiny-float32-standard-transposed" in ids
    assert not any(c.layout != "contiguous" for c in plan_cases(suite["math.addcmul"], "cpu", 1))
