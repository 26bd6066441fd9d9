"""Nothing for what was not submitted (design.md, "Scale and throughput"; issue 24): a task
without a kernel is a `missing` row computed from the suite's index alone — no job, no folder,
no task file parsed — and a kernel that layer 1 rejects never reaches a sandbox."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from kgb import protocol as P
from kgb.errors import TaskError
from kgb.tasks.index import index_suite
from kgb.tasks.loader import load_suite

FALLBACK = '''
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


def run(x):
    return torch.relu(x)
'''


def _submission(folder: Path) -> Path:
    (folder / "kernels").mkdir(parents=True)
    (folder / "kernels" / "relu.py").write_text(FALLBACK)
    (folder / "manifest.toml").write_text(
        '[submission]\nname = "one"\ngenerator = "test"\nmodel = "none"\ncreated = "2026-11-27"'
        '\n\n[[kernels]]\ntask = "activation.relu"\nfile = "kernels/relu.py"\n')
    return folder


def test_a_statically_rejected_kernel_costs_one_folder_and_no_sandbox_torch_or_plots(tmp_path):
    out = tmp_path / "out"
    # -X importtime names every module the host imported: the run must not pay for torch
    # (no kernel reaches a worker or a judge) nor for anything of the tasks it did not plan.
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kgb.cli", "verify",
         str(_submission(tmp_path / "sub")), "--out", str(out), "--device", "cpu",
         "--sandbox", "process"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
    assert "torch" not in imported and "matplotlib" not in imported
    assert sorted(p.name for p in (out / "jobs").iterdir()) == ["activation.relu"]
    job = out / "jobs" / "activation.relu"
    assert not (job / P.EXEC_FILE).exists()  # the sandbox never ran
    assert not (job / P.JOB_FILE).exists()

    report = json.loads((out / "report.json").read_text())
    rows = {j["task"]: j for j in report["jobs"]}
    suite_ids = index_suite(ROOT / "tasks").ids()
    assert list(rows) == list(suite_ids)  # one row per suite task, in the suite's order
    assert rows["activation.relu"]["verdict"] == "rejected"
    missing = [j for t, j in rows.items() if t != "activation.relu"]
    assert all(j["verdict"] == "missing" and j["log_dir"] is None for j in missing)
    categories = {t: task.category for t, task in load_suite(ROOT / "tasks").items()}
    assert all(j["category"] == categories[j["task"]] for j in missing)


def test_a_regrade_keeps_rows_without_folders(tmp_path):
    out = tmp_path / "out"
    first = subprocess.run(
        [sys.executable, "-m", "kgb.cli", "verify", str(_submission(tmp_path / "sub")),
         "--out", str(out), "--device", "cpu", "--sandbox", "process",
         "--only", "activation.relu,activation.elu"],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert first.returncode == 0, first.stderr[-2000:]
    before = json.loads((out / "report.json").read_text())
    again = subprocess.run([sys.executable, "-m", "kgb.cli", "report", str(out), "--regrade",
                            "--json"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert again.returncode == 0, again.stderr[-2000:]
    after = json.loads((out / "report.json").read_text())
    assert [(j["task"], j["verdict"], j["log_dir"]) for j in after["jobs"]] == \
        [(j["task"], j["verdict"], j["log_dir"]) for j in before["jobs"]] == \
        [("activation.relu", "rejected", "jobs/activation.relu"),
         ("activation.elu", "missing", None)]


def test_the_index_agrees_with_the_loader_and_refuses_what_it_refuses(tmp_path):
    index = index_suite(ROOT / "tasks")
    suite = load_suite(ROOT / "tasks")
    assert {e.id: e.category for e in index.entries} == {t: s.category for t, s in suite.items()}
    assert index.load("math.addcmul") == suite["math.addcmul"]

    # A file without a top-level id is refused as the loader refuses it, not skipped.
    odd = tmp_path / "suite" / "Math" / "odd"
    odd.mkdir(parents=True)
    text = (ROOT / "tasks/Math/addcmul/task.toml").read_text()
    (odd / "task.toml").write_text("\n".join(ln for ln in text.splitlines()
                                             if not ln.startswith("id =")) + "\n")
    with pytest.raises(TaskError, match="id"):
        index_suite(tmp_path / "suite")


def test_reading_many_plans_resolves_each_message_type_once(monkeypatch):
    import typing

    from kgb import protocol

    calls = []
    real = typing.get_type_hints
    protocol._hints.cache_clear()
    monkeypatch.setattr(typing, "get_type_hints", lambda cls: calls.append(cls) or real(cls))
    plan = P.PlanRecord("t", "Math", "k.py", "cpu", 1.0, cases=(), findings=(
        P.Finding("S101", "x", "k.py", 1, 1),) * 50)
    text = P.dumps(plan)
    for _ in range(20):
        assert P.loads(P.PlanRecord, text) == plan
    assert len(calls) == len(set(calls))  # each class resolved once, whatever the volume
    protocol._hints.cache_clear()
