"""Kernels written for CUDA, run by the CPU interpreter (docs/tasks.md, "KernelBench problems";
issue 28). Generators write GPU code: `assert x.is_cuda`, `x.device.type == "cuda"`,
`torch.empty(n, device="cuda")`, `x.cuda()`, `torch.cuda.current_device()`. On the CPU each of
those crashed an honest kernel. While the candidate's own code runs (its import, ModelNew's
construction, each call) a torch-function mode makes the inputs look like CUDA tensors and puts
every CUDA allocation on the CPU:

- `t.is_cuda` is True and `t.device` is `cuda:0` (`t.get_device()` 0) for a CPU tensor; a
  meta tensor stays meta;
- a `device=` that names CUDA (a string, a torch.device, an index) becomes the CPU, in every
  torch function and tensor method (`torch.empty*`, `zeros*`, `*_like`, `.to(...)`, `.new_*`);
  `t.cuda()` returns `t`;
- `torch.cuda.current_device()` is 0, `device_count()` 1, `synchronize()` does nothing and
  `torch.cuda.device(...)` is an empty context; `torch.cuda.is_available()` stays False (code
  that falls back to PyTorch when it is False is rejected by the static layer anyway).

Nothing here weakens a check: the mode is off while the worker inspects what the call returned
(the output's real device is recorded, and the trusted side requires the CPU), tensors stay
plain `torch.Tensor`s (no subclass, no wrapper), and the dispatch trace below still sees every
aten op the candidate runs. The candidate can leave the mode; then it only loses the disguise."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

_CUDA0 = torch.device("cuda", 0)
_CPU = torch.device("cpu")
# Property reads reach the mode as the descriptor's __get__, a new method-wrapper per access.
_IS_CUDA = torch._C.TensorBase.__dict__["is_cuda"]
_DEVICE = torch._C.TensorBase.__dict__["device"]


def _is_cuda(device: Any) -> bool:
    if isinstance(device, torch.device):
        return device.type == "cuda"
    if isinstance(device, str):
        return device == "cuda" or device.startswith("cuda:")
    return isinstance(device, int) and not isinstance(device, bool)  # an index: a CUDA device


class CudaOnCpu(TorchFunctionMode):
    """The mode itself (see the module docstring)."""

    def __torch_function__(self, func: Callable, types: Any, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        kwargs = dict(kwargs or {})
        owner = getattr(func, "__self__", None)
        if owner is _IS_CUDA:
            return args[0].device.type in ("cpu", "cuda")
        if owner is _DEVICE:
            real = func(*args)
            return _CUDA0 if real.type == "cpu" else real
        if func is torch.Tensor.get_device:
            real = func(*args, **kwargs)
            return 0 if real == -1 else real
        if func is torch.Tensor.cuda:
            return args[0]
        if _is_cuda(kwargs.get("device")):
            kwargs["device"] = _CPU
        if func is torch.Tensor.to:
            args = tuple(_CPU if i > 0 and _is_cuda(a) else a
                         for i, a in enumerate(args))
        return func(*args, **kwargs)


class _NoDevice(contextlib.nullcontext):
    """torch.cuda.device(...) as an empty context."""

    def __init__(self, device: Any = None) -> None:
        super().__init__()


def patch_torch_cuda() -> tuple[str, ...]:
    """The torch.cuda functions honest CUDA code calls around its launches, made harmless on
    the CPU (this worker process only); returns their names for the record."""
    patched = {"current_device": lambda: 0, "device_count": lambda: 1,
               "synchronize": lambda device=None: None, "device": _NoDevice}
    for name, value in patched.items():
        setattr(torch.cuda, name, value)
    return tuple(sorted(patched))


@contextlib.contextmanager
def disguised(on: bool) -> Iterator[None]:
    """The mode around the candidate's own code, when `on` (a CPU run)."""
    if not on:
        yield
        return
    with CudaOnCpu():
        yield
