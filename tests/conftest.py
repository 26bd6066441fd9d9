from __future__ import annotations

import subprocess
import sys
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


