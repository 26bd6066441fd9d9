"""`kgb compare` (one submission on several devices: P_hw, composite) and the metrics under it.
(tests/test_compare.py is the judge's output comparison.)"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import run_kgb
from synthetic_reports import GPU_JOBS, cpu_report, gpu_report

from kgb.cli import cli
from kgb.errors import BadInput
from kgb.jsonfiles import write_json_atomic
from kgb.metrics.composite import c_op, composite, job_scores, mean_composite, p_hw
from kgb.report.compare import compare_paths, compare_reports


def _job(verdict: str, speedup: float | None) -> dict:
    return {"verdict": verdict, "speedup_eager": speedup}


def test_p_hw_is_the_share_of_runs_correct_and_at_least_0_8x():
    runs = [_job("passed", 1.3), _job("passed", 0.8), _job("passed", 0.79),
            _job("incorrect", None), None]
    assert p_hw(runs) == pytest.approx(2 / 5)  # 0.8 counts (≥), 0.79 and absent do not
    assert p_hw([_job("passed", None)]) == 0.0  # correct but never timed: not shown fast
    assert p_hw([]) is None
    assert p_hw([_job("passed", 1.5)], threshold=2.0) == 0.0


def test_composite_multiplies_its_factors_and_fails_closed():
    assert composite(2.0, 0.25, 1.0, 0.5) == pytest.approx(2.0 * 0.75 * 1.0 * 0.5)
    assert composite(2.0, 1.7, 1.0, 1.0) == 0.0  # 1 − CV clamped at 0, never negative
    assert composite(None, 0.1, 1.0, 1.0) is None  # an unknown speed is not made up
    assert composite(None, None, 0.0, None) == 0.0  # nothing correct: 0 whatever else
    assert composite(1.5, 0.0, 0.5, 1.0) == pytest.approx(0.75)


def test_c_op_is_the_correct_share_of_planned_cases():
    assert c_op({"coverage": {"cases": 8, "passed": 6}}) == 0.75
    assert c_op({"coverage": {"cases": 0, "passed": 0}}) is None


def test_job_scores_untimed_runs_have_no_composite():
    job = {"verdict": "passed", "speedup_eager": 1.2, "coverage": {"cases": 2, "passed": 2},
           "timings": [{"eager_ms": 2.0, "median_ms": 1.0}, {"eager_ms": 1.0, "median_ms": 1.0}]}
    timed = job_scores(job, timed=True)
    assert timed["speedup_median"] == pytest.approx(1.5)
    assert timed["shape_cv"] == pytest.approx(0.5 / 1.5)
    assert timed["composite"] == pytest.approx(1.5 * (1 - 0.5 / 1.5))
    untimed = job_scores(job, timed=False)
    assert untimed["composite"] is None and untimed["speedup_median"] is None
    assert untimed["c_op"] == 1.0
    assert mean_composite([dict(job, composite=None)]) is None
    assert mean_composite([{"composite": 1.0}, {"composite": 0.0}]) == 0.5


def _variant(name: str, speedups: dict[str, float]) -> dict:
    """The synthetic GPU run on another device, kernels `speedups` times as fast."""
    jobs = [(t, c, v, [(e * speedups.get(t, 1.0), k) for e, k in shapes], r, m, mi)
            for t, c, v, shapes, r, m, mi in GPU_JOBS]
    return gpu_report(jobs=jobs, device_name=name)


def test_compare_gives_p_hw_per_task_over_timed_runs():
    h100 = gpu_report()
    # On this device addcmul reaches 1.0x (0.5 × 2) and matmul falls to 0.625x (1.25 × 0.5).
    other = _variant("AMD MI300X", {"math.addcmul": 2.0, "matmul.matmul": 0.5})
    cmp = compare_reports([h100, other, cpu_report()])
    rows = {r["task"]: r for r in cmp["tasks"]}
    assert [r["label"] for r in cmp["runs"]] == ["NVIDIA H100 80GB HBM3", "AMD MI300X",
                                                 "CPU (Triton interpreter)"]
    assert [r["timed"] for r in cmp["runs"]] == [True, True, False]
    assert rows["normalization.softmax"]["p_hw"] == 1.0
    assert rows["math.addcmul"]["p_hw"] == 0.5  # 0.5x on the H100, 1.0x on the other
    assert rows["matmul.matmul"]["p_hw"] == 0.5
    assert rows["matmul.bmm"]["p_hw"] == 0.0 and rows["matmul.bmm"]["composite"] == 0.0
    assert rows["math.addcmul"]["runs"][1] == {"verdict": "passed", "speedup_eager": 1.0,
                                              "rule": None}
    assert rows["math.addcmul"]["runs"][2]["speedup_eager"] is None  # the CPU run: no speed
    assert cmp["summary"]["portable"] == 2  # softmax and rms_norm are fast everywhere
    assert cmp["summary"]["timed_runs"] == 2
    # softmax: median speedup 2.0 on both, CV 0, all cases correct, P_hw 1
    assert rows["normalization.softmax"]["composite"] == pytest.approx(2.0)


def test_compare_same_device_twice_is_told_apart():
    cmp = compare_reports([gpu_report(), gpu_report()])
    assert [r["label"] for r in cmp["runs"]] == ["NVIDIA H100 80GB HBM3 #1",
                                                 "NVIDIA H100 80GB HBM3 #2"]


def test_compare_reads_folders_and_files(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    write_json_atomic(folder / "report.json", gpu_report())
    file = write_json_atomic(tmp_path / "cpu.json", cpu_report())
    cmp = compare_paths([folder, file])
    # a row per submitted task: the missing activation.relu is no row
    assert cmp["runs"][0]["path"] == str(folder) and len(cmp["tasks"]) == len(GPU_JOBS) - 1


def test_compare_cli_table_and_json(tmp_path):
    a = write_json_atomic(tmp_path / "a.json", gpu_report())
    b = write_json_atomic(tmp_path / "b.json", _variant("AMD MI300X", {"math.addcmul": 2.0}))
    runner = CliRunner()
    table = runner.invoke(cli, ["compare", str(a), str(b)])
    assert table.exit_code == 0, table.output
    assert "AMD MI300X" in table.output and "P_hw" in table.output
    line = next(ln for ln in table.output.splitlines() if "math.addcmul" in ln)
    # 0.5x here, 1.0x there: P_hw 0.50; composite median 0.75 × (1 − 0) × 1 × 0.5
    assert "0.50×" in line and "1.00×" in line and line.split("×")[-1].split()[1:4:2] == [
        "0.50", "0.38"]
    data = json.loads(runner.invoke(cli, ["compare", str(a), str(b), "--json"]).output)
    row = next(r for r in data["tasks"] if r["task"] == "math.addcmul")
    assert row["p_hw"] == 0.5 and row["composite"] == pytest.approx(0.375)


def test_compare_bad_input_is_exit_2_with_one_line(tmp_path):
    good = write_json_atomic(tmp_path / "good.json", gpu_report())
    wrong = write_json_atomic(tmp_path / "wrong.json", {"schema_version": 1})
    runner = CliRunner()
    for bad in (tmp_path / "missing.json", wrong):
        result = runner.invoke(cli, ["compare", str(good), str(bad)])
        assert isinstance(result.exception, BadInput) and result.exception.exit_code == 2
    done = run_kgb("compare", good, wrong, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "schema_version 1" in done.stderr
    assert "Traceback" not in done.stderr
    assert run_kgb("compare", timeout=120).returncode == 2  # no run given
