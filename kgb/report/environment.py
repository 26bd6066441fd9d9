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
        env.update(_gpu_facts(int(device.split(":")[1])), interpreter=False,
                   timings_meaningful=True)
    env["argv"] = sys.argv[1:]
    return env


def _gpu_facts(index: int) -> dict[str, Any]:
    """The GPU from NVML and torch's files (kgb.runner.host_gpus) — importing torch and
    starting CUDA for this cost seconds at the end of every GPU run — or from torch where
    NVML cannot stand in for it. `cuda`: the CUDA torch was built with."""
    from kgb.runner.host_gpus import driver_version, nvml_gpus, torch_cuda_version

    gpus = nvml_gpus()
    if gpus is not None:
        gpu = gpus[index]
        return dict(device_name=gpu.name, memory_bytes=gpu.memory_bytes,
                    compute_capability=gpu.compute_capability, cuda=torch_cuda_version(),
                    driver=driver_version())
    import torch

    props = torch.cuda.get_device_properties(index)
    return dict(device_name=props.name, memory_bytes=props.total_memory,
                compute_capability=f"{props.major}.{props.minor}", cuda=torch.version.cuda,
                driver=driver_version())
