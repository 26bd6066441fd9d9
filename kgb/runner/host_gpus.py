"""The host's GPUs as torch would number them, read from NVML and torch's own files without
importing torch.

On a GPU run the host imported torch and initialised CUDA only to ask how many GPUs there are
and what they are called — seconds before its first job's sandbox could start (the worker
imports torch itself, and the judge too). NVML answers in milliseconds, in the same order
(`cuda:N` is the N-th GPU in PCI bus order, CUDA_DEVICE_ORDER=PCI_BUS_ID). Where NVML cannot
stand in for torch's answer, `nvml_gpus` gives None and the caller asks torch as before:
no NVML, CUDA_VISIBLE_DEVICES set (torch renumbers; NVML does not), a GPU in MIG mode (torch
sees its instances, not the GPU), a torch without CUDA, or a driver older than torch's CUDA
(torch may still run it through minor-version compatibility: only torch can say)."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class HostGpu:
    name: str  # as torch.cuda.get_device_name gives it, e.g. "NVIDIA H200"
    memory_bytes: int
    compute_capability: str  # "9.0"


def torch_cuda_version() -> str | None:
    """The CUDA torch was built with (torch.version.cuda), read from torch/version.py without
    importing torch; None for a CPU build or where the file does not say."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return cuda_in(Path(next(iter(spec.submodule_search_locations))) / "version.py")


def cuda_in(version_file: Path) -> str | None:
    """`cuda` of a torch/version.py (`cuda: Optional[str] = '13.0'`, or `= None`)."""
    try:
        tree = ast.parse(version_file.read_text())
    except (OSError, SyntaxError, ValueError):
        return None
    target: ast.expr
    value: ast.expr | None
    for node in tree.body:
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "cuda":
            return value.value if isinstance(value, ast.Constant) \
                and isinstance(value.value, str) else None
    return None


def cudnn_version() -> str | None:
    """The installed cuDNN wheel's version (nvidia-cudnn-cuXX, what pip's torch loads), without
    loading the library; None where cuDNN came another way."""
    for name in ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11"):
        try:
            return f"{name} {importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _as_number(cuda: str) -> int | None:
    """"13.0" -> 13000, the form of NVML's cudaDriverVersion."""
    major, _, minor = cuda.partition(".")
    if not (major.isdigit() and minor.split(".")[0].isdigit()):
        return None
    return int(major) * 1000 + int(minor.split(".")[0]) * 10


def nvml_gpus() -> tuple[HostGpu, ...] | None:
    """The GPUs torch would see, in its numbering, or None where only torch can say."""
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        return None
    cuda = torch_cuda_version()
    wanted = _as_number(cuda) if cuda else None
    if wanted is None:
        return None
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
        if pynvml.nvmlSystemGetCudaDriverVersion() < wanted:
            return None
        gpus = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            if _mig_enabled(pynvml, handle):
                return None
            name = pynvml.nvmlDeviceGetName(handle)
            major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
            gpus.append(HostGpu(name.decode() if isinstance(name, bytes) else str(name),
                                int(pynvml.nvmlDeviceGetMemoryInfo(handle).total),
                                f"{major}.{minor}"))
        return tuple(gpus)
    except Exception:  # any NVML error (no driver library, a lost GPU): torch decides
        return None


def gpu_count() -> int:
    """How many GPUs torch would see: NVML's count where it can stand in for torch
    (milliseconds, against seconds for torch's import and CUDA's start on the first job's
    path), else torch's."""
    gpus = nvml_gpus()
    if gpus is not None:
        return len(gpus)
    import torch

    return torch.cuda.device_count()


def gpu_name(index: int) -> str:
    """cuda:`index`'s name, as torch.cuda.get_device_name gives it (NVML, else torch)."""
    gpus = nvml_gpus()
    if gpus is not None:
        return gpus[index].name
    import torch

    return torch.cuda.get_device_name(index)


def _mig_enabled(pynvml, handle) -> bool:
    try:
        current, _pending = pynvml.nvmlDeviceGetMigMode(handle)
    except Exception:  # not supported on this GPU: no MIG
        return False
    return bool(current)


def driver_version() -> str | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        text = pynvml.nvmlSystemGetDriverVersion()
        return text.decode() if isinstance(text, bytes) else str(text)
    except Exception:
        return None
