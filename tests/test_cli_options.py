"""What a person or a CI job meets at the command line: bad options are bad input (exit 2, one
line), a run is never silently replaced, `--fail-under` gates a run (exit 4), `--feedback` says
what to fix, a closed pipe is not an error, and a run without isolation says so."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, run_kgb


@pytest.mark.parametrize("args, needle", [
    (["--sandbox", "foo"], "'foo' is not one of"),
    (["--timeout", "-1"], "-1"),
    (["--jobs", "0"], "0"),
    (["--fail-under", "correctness=0.9"], "give NAME=VALUE with NAME one of"),
    (["--fail-under", "correct=high"], "'high' is not a number"),
    (["--device", "cpu", "--cuda-graph"], "--cuda-graph times GPU runs"),
])
def test_bad_options_are_bad_input_in_one_line(args, needle, tmp_path):
    done = run_kgb("verify", "examples/honest", "--out", tmp_path / "out", *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and needle in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()  # refused before anything ran


@pytest.fixture
def one_run(addcmul_run):
    """The session's gated math.addcmul run (conftest.addcmul_run), shared with
    tests/test_judge_pool.py; nothing here writes into it."""
    return addcmul_run


@pytest.mark.slow
def test_a_run_above_its_gate_exits_0_and_says_what_it_measured(one_run):
    out, done = one_run
    assert done.returncode == 0, done.stderr[-2000:]
    assert "math.addcmul: passed on the CPU — all" in done.stdout  # --feedback (and unrun shapes)
    assert "correct 1/1 (100%)" in done.stdout
    assert "isolation: none" in done.stdout and "make sandboxes" in done.stdout
    report = json.loads((out / "report.json").read_text())
    [job] = report["jobs"]
    assert job["feedback"].startswith("math.addcmul: passed")
    assert report["summary"]["rates"]["correct_rate"] == 1.0
    assert "cost" in report  # the example token log with the example prices


@pytest.mark.slow
def test_gates_fail_closed_and_exit_4(one_run):
    out, _ = one_run
    missed = run_kgb("report", out, "--fail-under", "correct=0.5,fast_1=0.5")
    assert missed.returncode == 4, missed.stderr
    assert "fast_1 could not be measured" in missed.stderr  # no timings on the CPU
    assert missed.stderr.count("\n") == 1
    assert run_kgb("report", out, "--fail-under", "compile=1,correct=1").returncode == 0


@pytest.mark.slow
def test_another_run_in_the_same_out_is_refused_unless_forced(one_run):
    out, _ = one_run
    again = run_kgb("verify", "examples/honest", "--device", "cpu", "--sandbox", "process",
                    "--only", "math.addcmul", "--out", out)
    assert again.returncode == 2 and "--force" in again.stderr
    assert again.stderr.count("\n") == 1


@pytest.mark.slow
def test_a_closed_pipe_is_not_an_error(one_run):
    out, _ = one_run
    done = subprocess.run(f"set -o pipefail; {sys.executable} -m kgb.cli report {out} | head -1",
                          shell=True, executable="/bin/bash", capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stderr


def test_pricing_without_a_token_log_is_a_warning(tmp_path):
    from conftest import build_real_report
    from kgb.report.terminal import print_report

    path = build_real_report(tmp_path / "r", [("math.addcmul", "passed", None)])
    report = json.loads(path.read_text())
    report["warnings"] = ["--pricing p.toml was given but the submission has no tokens.jsonl"]
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print_report(report)
    assert "warning: --pricing p.toml was given" in buffer.getvalue()


@pytest.mark.slow
def test_the_run_writes_the_hosts_own_timeline(one_run):
    """host_timeline.json beside the report: the host's marks in seconds since its process
    started, in the order they happen (where a run's wall goes outside its jobs)."""
    out, _ = one_run
    marks = json.loads((out / "host_timeline.json").read_text())
    names = [m["mark"] for m in marks]
    assert names == ["open", "device resolved", "planned", "opened", "first job prepared",
                     "first worker released", "jobs ended", "closed", "written"]
    seconds = [m["s"] for m in marks]
    assert seconds == sorted(seconds) and 0 < seconds[0] < seconds[-1]
