"""The Python API a generator loop calls (kgb.verify_kernel, kgb.verify): the same pipeline as
the CLI, typed results, feedback to repair with, errors a caller causes raised as BadInput."""

from __future__ import annotations

import pytest

import kgb
from conftest import ROOT
from kgb.errors import BadInput

pytestmark = pytest.mark.slow

HONEST = (ROOT / "tasks/Math/addcmul/solution.py").read_text()


def test_a_repair_loop_gets_feedback_then_a_pass(tmp_path):
    wrong = HONEST.replace("0.5 * t1 * t2", "0.25 * t1 * t2")
    first = kgb.verify_kernel("math.addcmul", wrong, out=tmp_path / "try1", device="cpu",
                              sandbox="process")
    assert isinstance(first, kgb.JobResult) and first.verdict == "incorrect"
    assert "first at [" in first.feedback and "math.addcmul: incorrect" in first.feedback
    second = kgb.verify_kernel("math.addcmul", HONEST, out=tmp_path / "try2", device="cpu",
                               sandbox="process")
    assert second.passed and second.entry["coverage"]["checked"] > 0
    assert (tmp_path / "try2" / "run" / "report.json").is_file()  # the evidence is kept


def test_the_api_runs_the_static_layer_too():
    cheat = HONEST.replace("    return out", "    return torch.addcmul(x, t1, t2, value=0.5)")
    result = kgb.verify_kernel("math.addcmul", cheat, device="cpu", sandbox="process")
    assert result.verdict == "rejected" and result.rule == "S110", result.message


def test_verify_runs_only_the_submitted_tasks_and_returns_rates(tmp_path):
    from kgb.suite.corpus import write_submission

    sub = write_submission(tmp_path / "sub", {"math.addcmul": HONEST})
    report = kgb.verify(sub, out=tmp_path / "out", device="cpu", sandbox="process")
    assert [j.task for j in report.jobs] == ["math.addcmul"]
    assert report.rates["correct_rate"] == 1.0 and isinstance(report.seed, int)
    with pytest.raises(BadInput):
        kgb.verify_kernel("no.such_task", HONEST, device="cpu", sandbox="process")
