"""A stopped run resumes: finished jobs are kept (same seed), the rest run; a changed submission
or seed is refused. `kgb report` re-renders a run's report.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, run_kgb

pytestmark = pytest.mark.slow

ONLY = "math.addcmul,reduce.sum_rows"


def verify(sub: Path, out: Path, *extra: str):
    return run_kgb("verify", sub, "--device", "cpu", "--sandbox", "process", "--only", ONLY,
                   "--out", out, *extra)


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A finished run with its second job's journal entry removed, as if stopped there."""
    base = tmp_path_factory.mktemp("resume")
    sub = base / "sub"
    shutil.copytree(ROOT / "examples" / "honest", sub)
    out = base / "out"
    done = verify(sub, out, "--seed", "7")
    assert done.returncode == 0, done.stderr
    (out / "jobs" / "reduce.sum_rows" / "verdict.json").unlink()
    return sub, out


def test_resume_keeps_finished_jobs_and_runs_the_rest(stopped_run, tmp_path):
    sub, out = stopped_run
    kept = out / "jobs" / "math.addcmul" / "verdict.json"
    stamp = kept.stat().st_mtime_ns
    done = verify(sub, out, "--resume")
    assert done.returncode == 0, done.stderr
    assert "math.addcmul: passed (resumed)" in done.stderr
    assert kept.stat().st_mtime_ns == stamp  # not re-run
    report = json.loads((out / "report.json").read_text())
    assert report["complete"] is True and report["seed"] == 7
    assert {j["task"]: j["verdict"] for j in report["jobs"]} == {
        "math.addcmul": "passed", "reduce.sum_rows": "passed"}
    assert (out / "jobs" / "reduce.sum_rows" / "verdict.json").is_file()


def test_resume_refuses_a_changed_kernel(stopped_run):
    sub, out = stopped_run
    changed = sub.parent / "changed"
    shutil.copytree(sub, changed)
    kernel = changed / "kernels" / "math_addcmul.py"
    kernel.write_text(kernel.read_text() + "\n# edited\n")
    done = verify(changed, out, "--resume")
    assert done.returncode == 2
    assert "--resume: the submission, suite, device, sandbox or limits differ" in done.stderr


def test_resume_refuses_another_seed_and_a_folder_without_a_run(stopped_run, tmp_path):
    sub, out = stopped_run
    done = verify(sub, out, "--resume", "--seed", "8")
    assert done.returncode == 2 and "used seed 7" in done.stderr
    empty = tmp_path / "never-ran"
    done = verify(sub, empty, "--resume")
    assert done.returncode == 2 and "run.json does not exist" in done.stderr
    assert not empty.exists()


def test_report_renders_a_saved_run_and_flags_an_incomplete_one(stopped_run, tmp_path):
    _, out = stopped_run
    shown = run_kgb("report", out)
    assert shown.returncode == 0, shown.stderr
    assert "math.addcmul" in shown.stdout and "reduce.sum_rows" in shown.stdout
    partial = tmp_path / "partial"
    partial.mkdir()
    report = json.loads((out / "report.json").read_text())
    report["complete"] = False
    (partial / "report.json").write_text(json.dumps(report))
    assert "incomplete run" in run_kgb("report", partial).stdout


@pytest.mark.parametrize("content, message", [(None, "does not exist"),
                                              ("{not json", "is not valid JSON"),
                                              ('{"schema_version": 99}', "schema_version 99")])
def test_report_of_a_bad_folder_is_one_line_and_exit_2(tmp_path, content, message):
    if content is not None:
        (tmp_path / "report.json").write_text(content)
    done = run_kgb("report", tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_fresh_run_clears_the_job_folders_of_the_run_before(stopped_run, tmp_path):
    """Otherwise a later --resume could pick up a verdict from another seed."""
    sub, out = stopped_run
    reused = tmp_path / "out"
    shutil.copytree(out, reused)
    refused = run_kgb("verify", sub, "--device", "cpu", "--sandbox", "process", "--only",
                      "math.addcmul", "--out", reused)
    assert refused.returncode == 2 and "already holds a run" in refused.stderr, refused.stderr
    assert refused.stderr.count("\n") == 1 and (reused / "jobs" / "reduce.sum_rows").exists()
    done = run_kgb("verify", sub, "--device", "cpu", "--sandbox", "process", "--only",
                   "math.addcmul", "--out", reused, "--force")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (reused / "jobs").iterdir()) == ["math.addcmul"]


def test_a_finished_job_without_its_plan_runs_again_instead_of_a_traceback(stopped_run,
                                                                            tmp_path):
    """An OUT carried between machines with the verdicts but not the plans (session 29's first
    suite_cuda.sh rehearsal): the report is built from each job's plan.json, and the resumed
    run ended in `ProtocolError: plan.json is missing`. Such a job is not finished."""
    sub, out = stopped_run
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    (copy / "jobs" / "math.addcmul" / "plan.json").unlink()
    # the module's stopped run is shared: an earlier test's --resume may have finished sum_rows
    finished = (copy / "jobs" / "reduce.sum_rows" / "verdict.json").is_file()
    done = verify(sub, copy, "--resume")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "math.addcmul: passed (resumed)" not in done.stderr
    assert ("reduce.sum_rows: passed (resumed)" in done.stderr) == finished, done.stderr
    report = json.loads((copy / "report.json").read_text())
    assert {j["task"]: j["verdict"] for j in report["jobs"]} == {
        "math.addcmul": "passed", "reduce.sum_rows": "passed"}
    assert (copy / "jobs" / "math.addcmul" / "plan.json").is_file()
