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
