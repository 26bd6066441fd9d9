from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_kgb(*args: str, timeout: float = 900, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess: real exit codes, real stderr."""
    return subprocess.run([sys.executable, "-m", "kgb.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd or ROOT)


@pytest.fixture
def kgb():
    return run_kgb


def write_submission(folder: Path, kernels: dict[str, str], name: str = "t") -> Path:
    """A submission folder with one kernel file per task id: {task_id: source}."""
    (folder / "kernels").mkdir(parents=True, exist_ok=True)
    lines = [f'[submission]\nname = "{name}"\n']
    for task, source in kernels.items():
        fname = f"kernels/{task.replace('.', '_')}.py"
        (folder / fname).write_text(source)
        lines.append(f'[[kernels]]\ntask = "{task}"\nfile = "{fname}"\n')
    (folder / "manifest.toml").write_text("\n".join(lines))
    return folder


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


def trimmed_suite(folder: Path, task_ids: set[str], shapes: int = 2) -> Path:
    """A copy of the suite's tasks `task_ids` with only their first `shapes` CPU shapes and
    their first dtype: the same contracts at a fraction of the interpreter's time."""
    import re

    from kgb.tasks.loader import load_suite

    suite = load_suite(ROOT / "tasks")
    for task_id in task_ids:
        task = suite[task_id]
        target = folder / task.category / task.folder.name
        target.mkdir(parents=True)
        for name in ("inputs.py", "reference.py", "solution.py"):
            (target / name).write_text((task.folder / name).read_text())
        keep = [s.name for s in task.shapes_for("cpu")][:shapes]
        text = (task.folder / "task.toml").read_text()
        blocks = re.split(r"(?=^\[)", text, flags=re.M)  # at every table header
        kept = [b for b in blocks if not b.startswith("[[shapes]]")
                or re.search(r'^name = "(.*)"$', b, re.M).group(1) in keep]
        text = "".join(kept)
        text = re.sub(r"^dtypes = \[.*\]$", f'dtypes = ["{task.dtypes[0]}"]', text, flags=re.M)
        (target / "task.toml").write_text(text)
    return folder
