"""KernelBench compatibility (docs/tasks.md, "KernelBench problems"): problem files become
tasks, and kernel files defining `class ModelNew` are verified by the ordinary pipeline. The
problem files under tests/fixtures/kernelbench are written for these tests in KernelBench's
style; the ModelNew answers are under tests/fixtures/kernelbench_modelnew."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from conftest import ROOT, run_kgb, write_submission
from kgb.anticheat.static import analyze
from kgb.tasks.casegen import load_module
from kgb.tasks.kernelbench import import_problem, import_problems
from kgb.tasks.kernelbench.parse import ProblemError
from kgb.tasks.loader import load_suite

PROBLEMS = ROOT / "tests" / "fixtures" / "kernelbench"
ANSWERS = ROOT / "tests" / "fixtures" / "kernelbench_modelnew"
RELU, LINEAR, SOFTMAX = ("activation.kb_1_relu", "matmul.kb_2_linear_bias",
                         "normalization.kb_3_row_softmax")
LINEAR_AGAIN = "matmul.kb_5_linear_bias_again"
KIT = ROOT / "scripts" / "kernelbench"
# The kit's wide softmax again, under its own id, without its wide_batch_size shape (below).
BLOCK = "normalization.kb_6_softmax_wide"


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    """The fixture problems (plus a copy of the Linear one under another name) imported once."""
    problems = tmp_path_factory.mktemp("problems")
    for path in PROBLEMS.glob("*.py"):
        shutil.copy(path, problems / path.name)
    shutil.copy(PROBLEMS / "2_Linear_bias.py", problems / "5_Linear_bias_again.py")
    out = tmp_path_factory.mktemp("tasks")
    report = import_problems(problems, out)
    assert len(report.failed) == 1, report.failed
    return out


@dataclass(frozen=True)
class Verified:
    """One `kgb verify` batch over every kernel this file verifies (five runs before, each
    paying kgb's start-up): members honest, cheats, cuda (the fixture problems), kit
    (scripts/kernelbench's submission) and block (softmax_block1024.py on BLOCK), over one
    tasks folder holding all their tasks. A member's report has a `missing` job for each task
    it did not submit."""
    done: subprocess.CompletedProcess
    out: Path
    kit_tasks: Path  # scripts/kernelbench/problems as `kgb tasks import-kernelbench` made them
    block_cpu: dict  # BLOCK's CPU shapes as imported, before wide_batch_size was dropped

    def jobs(self, member: str) -> dict[str, dict]:
        report = json.loads((self.out / member / "report.json").read_text())
        return {j["task"]: j for j in report["jobs"]}

    def submitted(self, member: str) -> dict[str, dict]:
        return {t: j for t, j in self.jobs(member).items() if j["verdict"] != "missing"}


@pytest.fixture(scope="module")
def verified(imported, tmp_path_factory) -> Verified:
    root = tmp_path_factory.mktemp("kb-verify")
    tasks = root / "tasks"
    shutil.copytree(imported, tasks)
    kit_tasks = root / "kit-tasks"
    assert run_kgb("tasks", "import-kernelbench", KIT / "problems", "--out",
                   kit_tasks).returncode == 0
    shutil.copytree(kit_tasks, tasks, dirs_exist_ok=True)
    problems = root / "block-problems"
    problems.mkdir()
    shutil.copy(KIT / "problems" / "2_Softmax_wide.py", problems / "6_Softmax_wide.py")
    block_tasks = root / "block-tasks"
    assert run_kgb("tasks", "import-kernelbench", problems, "--out", block_tasks).returncode == 0
    [task] = load_suite(block_tasks).values()
    assert task.id == BLOCK
    block_cpu = {s.name: s.as_dict() for s in task.shapes if not s.gpu_only}
    # Only wide_dim matters there: wide_batch_size (2049 rows, one interpreted program each)
    # would triple the member's time.
    toml = next(block_tasks.rglob("task.toml"))
    toml.write_text(re.sub(r'\[\[shapes\]\]\nname = "wide_batch_size"\n.*?\n\n', "",
                           toml.read_text(), flags=re.S))
    shutil.copytree(block_tasks, tasks, dirs_exist_ok=True)
    subs = root / "subs"
    write_submission(subs / "honest", {RELU: (ANSWERS / "relu_honest.py").read_text(),
                                       LINEAR: (ANSWERS / "linear_honest.py").read_text(),
                                       SOFTMAX: (ANSWERS / "softmax_honest.py").read_text()},
                     name="honest")
    write_submission(subs / "cheats", {
        RELU: (ANSWERS / "relu_cheat_torch.py").read_text(),
        LINEAR: (ANSWERS / "linear_zero_init.py").read_text(),
        LINEAR_AGAIN: (ANSWERS / "linear_cheat_submodule.py").read_text()}, name="cheats")
    write_submission(subs / "cuda", {RELU: (ANSWERS / "relu_cuda_idioms.py").read_text()},
                     name="cuda")
    shutil.copytree(KIT / "submission", subs / "kit")
    write_submission(subs / "block", {BLOCK: (ANSWERS / "softmax_block1024.py").read_text()},
                     name="block")
    out = root / "out"
    done = run_kgb("verify", subs, "--tasks", tasks, "--device", "cpu", "--sandbox", "process",
                   "--jobs", "2", "--out", out, timeout=900)
    assert done.returncode == 0, done.stderr
    return Verified(done, out, kit_tasks, block_cpu)


def test_good_files_become_loadable_tasks_and_the_bad_one_is_reported(imported):
    suite = load_suite(imported)
    assert set(suite) == {RELU, LINEAR, SOFTMAX, LINEAR_AGAIN}
    relu = suite[RELU]
    assert (relu.entry, relu.source, relu.dtypes, relu.compare) == (
        "ModelNew", "kernelbench", ("float32",), "allclose")
    assert [(s.name, s.as_dict()) for s in relu.shapes] == [
        ("given", {"batch_size": 16, "dim": 1000}), ("tiny", {"batch_size": 5, "dim": 7}),
        ("odd", {"batch_size": 16, "dim": 29})]
    assert "non-pow2" in relu.shapes[1].tags and relu.modes == ("standard", "outlier")
    # in_features builds the Model (get_init_inputs): it is never scaled; batch_size is.
    linear = suite[LINEAR]
    assert [s.as_dict() for s in linear.shapes] == [
        {"batch_size": 24, "in_features": 48}, {"batch_size": 5, "in_features": 48}]
    tol = linear.tolerance_for("float32")
    assert (tol.atol, tol.rtol, tol.rel_l2) == (1e-2, 1e-2, 1e-3)
    assert "in_features: int, out_features: int" in linear.signature
    assert "class Model(nn.Module)" in linear.description  # the problem, as KernelBench shows it


def test_inputs_py_holds_no_model_and_draws_from_the_case_generator(imported):
    folder = imported / "MatrixMultiply" / "kb_2_linear_bias"
    text = (folder / "inputs.py").read_text()
    assert "class Model" not in text and "generator=gen" in text
    inputs = load_module(folder / "inputs.py", "kb_test_inputs")
    gen = torch.Generator().manual_seed(3)
    (x,) = inputs.make_inputs({"batch_size": 4, "in_features": 48}, "float32", gen, "standard")
    assert x.shape == (4, 48)
    again = inputs.make_inputs({"batch_size": 4, "in_features": 48}, "float32",
                               torch.Generator().manual_seed(3), "standard")[0]
    assert torch.equal(x, again)


def test_model_and_modelnew_are_built_with_the_same_parameters(imported):
    folder = imported / "MatrixMultiply" / "kb_2_linear_bias"
    reference = load_module(folder / "reference.py", "kb_test_reference")
    inputs = load_module(folder / "inputs.py", "kb_test_inputs2")
    answer = load_module(ANSWERS / "linear_honest.py", "kb_test_answer")
    model = inputs.build_model(reference.Model, "cpu")
    new = inputs.build_model(answer.ModelNew, "cpu")
    assert torch.equal(model.linear.weight, new.linear.weight)
    assert torch.equal(model.linear.bias, new.linear.bias)
    assert not model.linear.weight.requires_grad


@pytest.mark.parametrize("text, says", [
    ("def get_inputs(:\n", "is not valid Python (line 1)"),
    ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
     "def get_init_inputs():\n    return []\n", "defines no get_inputs()"),
    ("import torch\nimport numpy as np\nclass Model(torch.nn.Module):\n"
     "    def forward(self, x):\n        return x\n"
     "def get_inputs():\n    return [torch.from_numpy(np.ones(3))]\n"
     "def get_init_inputs():\n    return []\n", "uses 'np'"),
])
def test_bad_problem_files_give_one_line_naming_the_file(tmp_path, text, says):
    path = tmp_path / "9_Bad.py"
    path.write_text(text)
    with pytest.raises(ProblemError) as caught:
        import_problem(path, tmp_path / "out", None, None)
    message = caught.value.message
    assert message.startswith("'9_Bad.py': ") and says in message and "\n" not in message


def test_a_model_that_fails_when_run_is_reported_not_imported(tmp_path):
    path = tmp_path / "8_Broken.py"
    path.write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                    "        return x @ x\nn = 6\nm = 5\ndef get_inputs():\n"
                    "    return [torch.randn(n, m)]\ndef get_init_inputs():\n    return []\n")
    with pytest.raises(ProblemError, match=r"^'8_Broken.py': .*fails: RuntimeError"):
        import_problem(path, tmp_path / "out", None, None)
    assert not list((tmp_path / "out").rglob("task.toml"))


def test_the_cli_imports_the_good_files_and_names_the_bad_one(tmp_path):
    done = run_kgb("tasks", "import-kernelbench", PROBLEMS, "--out", tmp_path / "tasks")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [bad] = [line for line in done.stderr.splitlines() if line.startswith("kgb: ")]
    assert "4_Malformed.py" in bad and "class Model" in bad
    assert set(load_suite(tmp_path / "tasks")) == {RELU, LINEAR, SOFTMAX}


def test_the_static_layer_reads_modelnew_forward_and_allows_parameters_in_init():
    def rules(name: str) -> list[str]:
        path = ANSWERS / name
        return [f.rule for f in analyze(path.read_text(), str(path), "ModelNew")]

    for honest in ("relu_honest.py", "linear_honest.py", "softmax_honest.py",
                   "linear_zero_init.py", "relu_cuda_idioms.py", "softmax_block1024.py"):
        assert rules(honest) == [], honest
    assert rules("relu_cheat_torch.py") == ["S110"]
    assert rules("linear_cheat_functional.py") == ["S110"]
    # A module built outside __init__ is compute again.
    source = (ANSWERS / "linear_honest.py").read_text().replace(
        "        x = x.contiguous()\n", "        x = nn.Linear(4, 4)(x)\n", 1)
    assert "S110" in [f.rule for f in analyze(source, "f.py", "ModelNew")]


@pytest.mark.slow
def test_modelnew_kernels_are_verified_end_to_end(verified):
    verdicts = {}
    for name in ("honest", "cheats"):
        for job in verified.submitted(name).values():
            verdicts[name, job["task"]] = (job["verdict"], job["rule"])
    assert verdicts["honest", RELU] == ("passed", None)
    assert verdicts["honest", LINEAR] == ("passed", None)
    assert verdicts["honest", SOFTMAX] == ("passed", None)
    assert verdicts["cheats", RELU] == ("rejected", "S110")  # torch.relu in forward
    assert verdicts["cheats", LINEAR] == ("incorrect", None)  # weights re-initialised
    # Calling the nn.Linear submodule in forward hides from the static layer; the dispatch
    # trace of layer 2 sees its addmm.
    assert verdicts["cheats", LINEAR_AGAIN] == ("rejected", "D206")


def test_cuda_idioms_see_a_cuda_device_and_allocate_on_the_cpu():
    """Issue 28: KernelBench-style kernels (`assert x.is_cuda`, `device="cuda"`,
    torch.cuda.current_device()) crashed on the CPU. Inside the worker's disguise they run;
    what they return is a plain CPU tensor, and outside it (where the worker records the
    outputs' device) the real device shows."""
    from kgb.worker.cuda_on_cpu import disguised

    x = torch.randn(5)
    with disguised(True):
        assert x.is_cuda and x.device == torch.device("cuda", 0) and x.get_device() == 0
        made = (torch.empty(3, device="cuda"), torch.zeros_like(x, device=x.device),
                x.to("cuda:0"), x.to(x.device, torch.float16), x.new_ones(2, device=0),
                torch.ones(2, device=torch.device("cuda")), x.cuda())
        assert all(t.is_cuda for t in made)
    assert all(type(t) is torch.Tensor and t.device.type == "cpu" for t in made)
    assert not x.is_cuda and str(x.device) == "cpu"
    with disguised(False):
        assert not x.is_cuda
    meta = torch.empty(2, device="meta")
    with disguised(True):
        assert not meta.is_cuda and meta.device.type == "meta"


@pytest.mark.slow
def test_a_kernel_written_for_cuda_passes_on_the_cpu(verified):
    """KernelBench's own Triton example asserts x.is_cuda: `crashed — AssertionError: Tensor
    must be on CUDA` on the CPU before; an honest kernel in that style passes now."""
    [job] = verified.submitted("cuda").values()
    assert job["task"] == RELU
    assert (job["verdict"], job["rule"]) == ("passed", None), job["message"]


def test_the_skeleton_of_an_imported_task_is_a_modelnew_class(imported):
    import ast

    from kgb.tasks.skeleton import kernel_file

    text = kernel_file(load_suite(imported)[LINEAR])
    tree = ast.parse(text)
    [klass] = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    init = next(n for n in klass.body if isinstance(n, ast.FunctionDef))
    assert klass.name == "ModelNew" and [a.arg for a in init.args.args] == [
        "self", "in_features", "out_features"]


def test_wide_shapes_take_each_dim_above_the_blocks_of_the_problems_own_shape():
    """Issue 28: for a GPU-only problem shape the CPU shapes were 5x7 and 37x29. Each scaled
    dim now gets a `wide_<dim>` candidate: one past the largest power of two below the
    problem's own length (any power-of-two block too short for the real shape is too short
    there too), within the CPU's element budget, the other dims at 2 (or as in `tiny`)."""
    from kgb.tasks.kernelbench.task_files import Shape
    from kgb.tasks.kernelbench.wide import above_blocks, candidates

    assert [above_blocks(n) for n in (393216, 4096, 1000, 37, 3)] == [262145, 2049, 513, 33, 3]
    cpu = [Shape("tiny", {"batch_size": 5, "dim": 7}, ()),
           Shape("odd", {"batch_size": 37, "dim": 29}, ())]
    found = candidates(cpu, {"tiny": 35, "odd": 1073}, ["batch_size", "dim"],
                       {"batch_size": 4096, "dim": 393216}, 1 << 20)
    assert found["wide_dim"] == {"batch_size": 2, "dim": 262145}
    assert found["wide_batch_size"] == {"batch_size": 2049, "dim": 2}
    # Over the budget the dim stops where the estimate fits, still not a power of two.
    small = candidates(cpu, {"tiny": 35, "odd": 1073}, ["batch_size", "dim"],
                       {"batch_size": 4096, "dim": 393216}, 1 << 18)
    assert small["wide_dim"] == {"batch_size": 2, "dim": 131071}


@pytest.mark.slow
def test_a_kernel_right_only_below_its_block_is_incorrect_on_the_cpu(verified):
    """Issue 28: a ModelNew for a 4096 x 393216 softmax with a hard-coded BLOCK_SIZE = 1024
    printed `passed` on the CPU. The imported task's wide_dim shape (2 x 262145) runs on the
    CPU and catches it; the kit's looping kernel passes there (test below)."""
    cpu = verified.block_cpu
    assert cpu["wide_dim"] == {"batch_size": 2, "dim": 262145}, cpu
    [job] = verified.submitted("block").values()
    assert job["task"] == BLOCK
    assert job["verdict"] == "incorrect" and job["message"].startswith("wide_dim"), job


def test_the_side_by_side_kit_passes_on_the_cpu(verified):
    """scripts/kernelbench (kgb next to KernelBench's evaluator on a GPU): its problems import
    and its answers pass kgb at the CPU shapes, so the GPU comparison starts from a sound kit."""
    gpu_only = [s for t in load_suite(verified.kit_tasks).values() for s in t.shapes
                if s.gpu_only]
    assert {s.name for s in gpu_only} == {"given"}  # 67 M and 1.6 G elements: GPU only
    report = json.loads((verified.out / "kit" / "report.json").read_text())
    assert {t: j["verdict"] for t, j in verified.submitted("kit").items()} == {
        "activation.kb_1_gelu_large": "passed", "normalization.kb_2_softmax_wide": "passed"}
    # Issue 28: the CPU pass names the problem's own shape, which ran nowhere — in the
    # verdict's message, the feedback, report.md and report.html (the terminal too).
    softmax = next(j for j in report["jobs"] if j["task"] == "normalization.kb_2_softmax_wide")
    given = "given (batch_size=4096, dim=393216)"
    assert softmax["unrun_shapes"] == [given], softmax["unrun_shapes"]
    cases = softmax["coverage"]["cases"]
    assert softmax["message"] == (f"passed on {cases} CPU case(s); the task's shape {given} "
                                  "runs on a GPU only and was not judged")
    assert "passed on the CPU" in softmax["feedback"] and given in softmax["feedback"]
    for name in ("report.md", "report.html"):
        text = (verified.out / "kit" / name).read_text()
        assert "Not judged on this device: 2 kernel(s) passed" in text and \
            "4096, dim=393216" in text, name
    # A batch's terminal prints a row per member; verify's table for one run is print_report,
    # which `kgb report` prints from the same report.json.
    shown = run_kgb("report", verified.out / "kit")
    assert shown.returncode == 0, shown.stderr
    assert "Not judged on this device" in " ".join(shown.stdout.split())


def test_problems_import_side_by_side_and_files_of_one_task_folder_in_order(tmp_path,
                                                                          monkeypatch):
    """Each problem's probe is a process of its own (seconds): files import side by side,
    except files that become the same task folder (one name in two folders), which run one
    after the other in file order, as one at a time would; the report keeps file order."""
    import threading
    import time

    from kgb.tasks import kernelbench as KB

    for folder, name in (("a", "1_GELU.py"), ("a", "2_ReLU.py"), ("b", "1_GELU.py"),
                         ("b", "3_SiLU.py")):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / name).write_text("# a problem\n")
    spans: dict[str, tuple[float, float]] = {}
    lock = threading.Lock()

    def fake(path, out, category, level):
        began = time.monotonic()
        time.sleep(0.3)
        with lock:
            spans[f"{path.parent.name}/{path.name}"] = (began, time.monotonic())
        return f"id.{path.parent.name}.{path.stem}", path

    monkeypatch.setattr(KB, "import_problem", fake)
    monkeypatch.setattr(KB.os, "cpu_count", lambda: 4)
    report = KB.import_problems(tmp_path, tmp_path / "out")
    assert [i for i, _ in report.imported] == ["id.a.1_GELU", "id.a.2_ReLU", "id.b.1_GELU",
                                               "id.b.3_SiLU"]
    assert KB.task_place(tmp_path / "a/1_GELU.py", None) == \
        KB.task_place(tmp_path / "b/1_GELU.py", None)
    assert spans["a/1_GELU.py"][1] <= spans["b/1_GELU.py"][0]  # one folder: in order
    assert spans["a/2_ReLU.py"][0] < spans["a/1_GELU.py"][1]  # others side by side
