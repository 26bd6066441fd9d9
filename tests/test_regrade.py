"""`kgb report OUT --regrade`: every verdict recomputed from the saved job folders, nothing run.
A run and its regrade give the same report; a regrade follows the files, not the old report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_kgb

pytestmark = pytest.mark.slow


@pytest.fixture
def run(broken_run, tmp_path):
    """A copy of the session's run of the broken example (conftest.broken_run: incorrect,
    crashed, timeout), so a regrade in place touches no other test's files."""
    import shutil

    assert broken_run.proc.returncode == 0, broken_run.proc.stderr[-2000:]
    return Path(shutil.copytree(broken_run.out, tmp_path / "run"))


def test_a_run_and_its_regrade_give_the_same_report(run):
    before = json.loads((run / "report.json").read_text())
    ran = {j["verdict"] for j in before["jobs"]} - {"missing"}  # the suite's unsubmitted tasks
    assert ran == {"incorrect", "crashed", "timeout"}
    done = run_kgb("report", run, "--regrade", "--json")
    assert done.returncode == 0, done.stderr
    assert "0 verdict(s) changed" in done.stderr
    assert json.loads(done.stdout) == before
    assert json.loads((run / "report.json").read_text()) == before


def test_regrade_reads_the_files_not_the_old_report(run, tmp_path):
    import shutil

    copy = tmp_path / "out"
    shutil.copytree(run, copy)
    judge = copy / "jobs" / "math.addcmul" / "judge.json"
    data = json.loads(judge.read_text())
    for case in data["cases"]:
        for call in case["calls"]:
            call.update(status="passed", message="")
    judge.write_text(json.dumps(data))
    done = run_kgb("report", copy, "--regrade", "--json")
    assert done.returncode == 0, done.stderr
    assert "1 verdict(s) changed: math.addcmul" in done.stderr
    verdicts = {j["task"]: j["verdict"] for j in json.loads(done.stdout)["jobs"]}
    assert verdicts["math.addcmul"] == "passed" and verdicts["reduce.sum_rows"] == "timeout"


def test_regrade_of_a_folder_without_a_run_is_bad_input(tmp_path):
    done = run_kgb("report", tmp_path, "--regrade")
    assert done.returncode == 2 and "does not exist" in done.stderr
