from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgb.suite.corpus import trimmed_suite, write_submission  # noqa: F401 - shared by tests

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def _private_config(tmp_path_factory):
    """kgb's per-user store (kgb.tasks.known_folders) in a folder of the test session's
    own, for the tests and every kgb they start, never the user's ~/.config."""
    import os

    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("xdg-config"))
    yield


def run_kgb(*args: str, timeout: float = 900, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess: real exit codes, real stderr."""
    return subprocess.run([sys.executable, "-m", "kgb.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd or ROOT)


@pytest.fixture
def kgb():
    return run_kgb


@pytest.fixture(scope="session")
def addcmul_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """One passed kernel (the honest example's math.addcmul) under a gate, with --feedback
    and the example prices: tests/test_cli_options.py reads its output and report, and
    tests/test_judge_pool.py judges copies of its job folder (each ran its own before)."""
    out = tmp_path_factory.mktemp("addcmul-run") / "out"
    done = run_kgb("verify", "examples/honest", "--device", "cpu", "--sandbox", "process",
                   "--only", "math.addcmul", "--out", out, "--fail-under", "correct=0.9",
                   "--feedback", "--pricing", ROOT / "examples" / "pricing.example.toml")
    return out, done


@dataclass(frozen=True)
class BrokenRun:
    proc: subprocess.CompletedProcess
    out: Path


@pytest.fixture(scope="session")
def broken_run(tmp_path_factory) -> BrokenRun:
    """`make demo-broken`'s run, once per session, beside two busy loops: the README's broken
    example (tests/test_examples.py), its regrade (tests/test_regrade.py) and the local side of
    the Ray comparison (tests/test_ray.py) all read this one run — each ran its own before (four
    runs of the same kernels). Under load, because a verdict must not depend on it (issue 28):
    the hanging kernel must end `timeout` and the wrong ones `incorrect`. `--warm on` prepares
    jobs 3 and 4 ahead in threads that end before their turn: the path on which the hang once
    came back `crashed` (a parent-death signal bound to the preparing thread killed it)."""
    out = tmp_path_factory.mktemp("broken-run") / "out"
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        proc = run_kgb("verify", "examples/broken", "--device", "cpu", "--sandbox", "process",
                       "--timeout", "20", "--jobs", "2", "--warm", "on", "--out", out)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return BrokenRun(proc, out)


def build_real_report(folder: Path, jobs: list[tuple[str, str, float | None]],
                      manifest_tasks: list[str] | None = None,
                      tokens: dict | None = None) -> Path:
    """A report.json written by kgb's own report builder (not by hand), for jobs given as
    (task id, verdict, speedup vs eager or None): what `kgb cost --report` reads in real life.
    The speedups stand in for timings until a run measures them."""
    from kgb import protocol as P
    from kgb.report.json_report import build_report, job_entry, write_report

    entries = []
    for task, verdict, speedup in jobs:
        plan = P.PlanRecord(task, "Math", f"kernels/{task}.py", "cuda:0", 60.0, ())
        record = P.JobRecord(P.VerdictRecord(P.Verdict(verdict)),
                             P.JobFacts(f"jobs/{task}", "cuda:0", speedup_eager=speedup,
                                        time_ms=1.0 if speedup else None))
        entries.append(job_entry(plan, record))
    header = {"environment": {"device_name": "test"}, "limits": {}, "seed": 1,
              "submission": {"name": "t"}}
    if manifest_tasks is not None:
        header["manifest"] = {"tasks": manifest_tasks, "tokens": tokens}
    folder.mkdir(parents=True, exist_ok=True)
    return write_report(build_report(header, entries, complete=True), folder)


