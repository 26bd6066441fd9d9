"""What a reader needs to trust or reproduce a report: versions, device, isolation."""

from __future__ import annotations

import importlib
import importlib.metadata
import platform
import sys
from typing import Any

import kgb


def version(package: str) -> str:
    """A package's version without importing it when it is not loaded yet (torch's import is
    seconds of a CPU run that rejects its one kernel statically)."""
    module = sys.modules.get(package)
    if module is not None:
        return str(module.__version__)
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:  # a source tree on sys.path
        return str(importlib.import_module(package).__version__)


def collect(device: str, sandbox_description: dict) -> dict:
    env: dict[str, Any] = {
        "kgb": kgb.__version__, "python": platform.python_version(), "torch": version("torch"),
        "triton": version("triton"), "platform": platform.platform(), "device": device,
        "sandbox": sandbox_description,
    }
    if device == "cpu":
        env.update(device_name="CPU (Triton interpreter)", interpreter=True,
                   timings_meaningful=False)
    else:
        import torch

        index = int(device.split(":")[1])
        props = torch.cuda.get_device_properties(index)
        env.update(device_name=props.name, interpreter=False, timings_meaningful=True,
                   cuda=torch.version.cuda, sm_count=props.multi_processor_count,
                   memory_bytes=props.total_memory, driver=_driver_version())
    env["argv"] = sys.argv[1:]
    return env


def _driver_version() -> str | None:
    try:
        import subprocess

        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, IndexError, subprocess.SubprocessError):
        return None
