"""The suite proves itself: every task tells honest kernels from degenerate answers, and every
solution passes its task through the CPU interpreter (kgb.suite.quality, at tiny shapes)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def _quality(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kgb.suite.quality", *args],
                          capture_output=True, text=True, timeout=1500, cwd=ROOT)


# `make test` checks a fixed sample of the suite; `make suite-check` (and KGB_QUALITY=all)
# checks every task. The sweep costs ~0.5 s of CPU per task and the suite keeps growing.
SAMPLE_ONE_IN = 4


def _changed_task_folders() -> set[Path]:
    """Task folders with uncommitted changes (git status): the tasks being written now."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--", "tasks"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    parts = [line[3:].split(" -> ")[-1].split("/") for line in done.stdout.splitlines()]
    return {ROOT.joinpath(*p[:3]) for p in parts if len(p) >= 3 and p[0] == "tasks"}


def quality_sample(folders: list[Path]) -> list[Path]:
    """The tasks `make test` checks: those whose folder name (Category/name) hashes to 0 mod
    SAMPLE_ONE_IN (a stable choice: it does not move when tasks are added), at least one per
    category, and every task folder with uncommitted changes (the ones being written)."""
    def key(folder: Path) -> int:
        name = f"{folder.parent.name}/{folder.name}"
        return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")

    chosen = {f for f in folders if key(f) % SAMPLE_ONE_IN == 0}
    for category in {f.parent for f in folders}:
        if not any(f.parent == category for f in chosen):
            chosen.add(min((f for f in folders if f.parent == category), key=key))
    changed = _changed_task_folders()
    return sorted(chosen | {f for f in folders if f in changed})


def test_tasks_pass_the_quality_check():
    """Every task of the sample (all with KGB_QUALITY=all), in two processes at once (each
    task's check is independent and one process uses one core: on a 2-core machine the sweep
    takes half the time). The union of the two halves is what was asked, checked by name."""
    every = sorted(p.parent for p in (ROOT / "tasks").glob("*/*/task.toml"))
    folders = every if os.environ.get("KGB_QUALITY") == "all" else quality_sample(every)
    halves = [folders[0::2], folders[1::2]]
    procs = [subprocess.Popen([sys.executable, "-m", "kgb.suite.quality", *map(str, half)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=ROOT) for half in halves]
    outputs = [p.communicate(timeout=1500) for p in procs]
    stdout = "".join(out for out, _ in outputs)
    problems = [line for line in stdout.splitlines() if line.startswith("PROBLEM")]
    assert all(p.returncode == 0 for p in procs) and not problems, \
        "\n".join(problems) or "".join(err[-2000:] for _, err in outputs)
    checked = {line.split(":", 1)[0] for line in stdout.splitlines() if line.endswith(": ok")}
    assert len(checked) == len(folders), "some task was not checked"


def test_the_quality_sample_is_stable_covers_every_category_and_takes_changed_tasks(
        monkeypatch):
    every = sorted(p.parent for p in (ROOT / "tasks").glob("*/*/task.toml"))
    monkeypatch.setattr(sys.modules[__name__], "_changed_task_folders", lambda: set())
    sample = quality_sample(every)
    assert {f.parent for f in sample} == {f.parent for f in every}
    assert len(every) // (2 * SAMPLE_ONE_IN) < len(sample) < len(every) // 2
    # adding tasks never drops one already in the sample
    assert set(sample) <= set(quality_sample(every + [ROOT / "tasks" / "Math" / "zz_new"]))
    monkeypatch.setattr(sys.modules[__name__], "_changed_task_folders", lambda: {every[1]})
    assert every[1] in quality_sample(every)


def test_a_task_with_a_loose_tolerance_is_flagged(tmp_path):
    folder = tmp_path / "addcmul"
    shutil.copytree(ROOT / "tasks/Math/addcmul", folder)
    toml = folder / "task.toml"
    text = toml.read_text()
    # A tolerance so loose that zeros, constants and bf16 rounding all pass.
    for key in ("atol", "rtol", "rel_l2"):
        text = text.replace(f"{key} = ", f"{key} = 1e9 + 0 * ")
    toml.write_text(text.replace("1e9 + 0 * ", "1e9 #"))
    proc = _quality(str(folder))
    assert proc.returncode == 1
    assert "a all-zero output passes" in proc.stdout
    assert "a bfloat16-rounded output passes" in proc.stdout


def test_a_reference_that_ignores_the_seed_and_a_wrong_solution_are_flagged(tmp_path):
    folder = tmp_path / "addcmul"
    shutil.copytree(ROOT / "tasks/Math/addcmul", folder)
    (folder / "inputs.py").write_text(
        "import torch\n\n\ndef make_inputs(shape, dtype, gen, mode):\n"
        "    dims = (shape['M'], shape['N'])\n"
        "    return tuple(torch.ones(dims, dtype=getattr(torch, dtype)) for _ in range(3))\n")
    solution = folder / "solution.py"
    solution.write_text(solution.read_text().replace("0.5 *", "0.25 *"))
    proc = _quality(str(folder))
    assert proc.returncode == 1
    assert "the reference output is the same for two seeds" in proc.stdout
    assert "solution fails tiny-float32-standard" in proc.stdout


def test_a_reference_that_widens_needs_a_baseline_that_never_uses_float64(tmp_path):
    """Speedups are measured against what a PyTorch user runs: a reference that computes half
    inputs in float32 (addcmul's) without a baseline is flagged, and so is a baseline that
    computes in float64; the suite's own torch.addcmul baseline passes."""
    folder = tmp_path / "addcmul"
    shutil.copytree(ROOT / "tasks/Math/addcmul", folder)
    reference = folder / "reference.py"
    text = reference.read_text()
    reference.write_text(text[:text.index("def baseline")])
    proc = _quality(str(folder))
    assert proc.returncode == 1
    assert "reference.py computes in float32 for float16 inputs" in proc.stdout
    reference.write_text(text.replace("torch.addcmul(x, t1, t2, value=0.5)",
                                      "torch.addcmul(x.double(), t1.double(), t2.double(), "
                                      "value=0.5).to(x.dtype)"))
    proc = _quality(str(folder))
    assert proc.returncode == 1 and "baseline() computes in float64" in proc.stdout
    reference.write_text(text)
    proc = _quality(str(folder))
    assert proc.returncode == 0, proc.stdout


def test_suite_check_runs_every_solution_and_names_the_ones_that_fail(tmp_path):
    """`kgb suite check`: the vendor's adaptation check, through the whole pipeline."""
    from conftest import run_kgb, trimmed_suite

    suite = trimmed_suite(tmp_path / "suite", ["math.addcmul", "activation.relu"], shapes=1)
    solution = next(suite.glob("*/relu/solution.py"))
    solution.write_text(solution.read_text().replace("tl.where(x > 0.0, x, 0.0)", "tl.where(x > 0.5, x, 0.0)"))
    done = run_kgb("suite", "check", "--tasks", suite, "--device", "cpu", "--sandbox",
                   "process", "--out", tmp_path / "out", "--jobs", "2", "--baselines", "eager",
                   "--timing", "off")
    assert done.returncode == 1, done.stderr[-2000:]
    environment = json.loads((tmp_path / "out" / "run" / "report.json").read_text())["environment"]
    assert (environment["baselines"], environment["timing"]) == ("eager", "off")
    assert "1 of 2 solutions passed" in done.stdout and "not passed: activation.relu" in done.stdout
    table = (tmp_path / "out" / "adaptation.md").read_text()
    assert "| math.addcmul | yes | passed |" in table
    assert "| activation.relu | yes | incorrect |" in table
    # --resume (a GPU check spans device calls): finished tasks are kept, not run again
    ran = tmp_path / "out" / "run" / "jobs" / "math.addcmul" / "exec.json"
    before = ran.stat().st_mtime_ns
    again = run_kgb("suite", "check", "--tasks", suite, "--device", "cpu", "--sandbox",
                    "process", "--out", tmp_path / "out", "--jobs", "2", "--baselines", "eager",
                    "--timing", "off", "--resume")
    assert again.returncode == 1 and "1 of 2 solutions passed" in again.stdout, again.stderr
    assert ran.stat().st_mtime_ns == before
