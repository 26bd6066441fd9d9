"""Checks on what a candidate returned, done inside the candidate worker where the objects are
(layer 2: threats 4, 9, 10, 11), and the one way outputs leave it: safetensors files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file

from kgb.runner.caseio import OUTPUT_KEY

Problem = tuple[str, str]  # (rule id, message)


def poison_allocator(inputs: tuple[Any, ...], device: str) -> None:
    """Fill memory the allocator is about to hand out with 0xFF bytes (NaN in every float
    dtype): an output the kernel never writes then shows up as NaN instead of stale data that
    happens to be right (threats 4, 5). Exact on CUDA's caching allocator; best effort on CPU."""
    sizes = [t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor)]
    for nbytes in sorted(set(sizes + [1 << 16, 1 << 20])):
        block = torch.empty(nbytes, dtype=torch.uint8, device=device)
        block.fill_(0xFF)
        del block


def normalize_outputs(returned: Any) -> tuple[tuple[torch.Tensor, ...], Problem | None]:
    items = returned if type(returned) in (tuple, list) else (returned,)
    for i, item in enumerate(items):
        if type(item) is not torch.Tensor:  # exact type: no subclass, no lazy proxy
            return (), ("D203", f"output {i} is {type(item).__module__}.{type(item).__qualname__},"
                                f" not exactly torch.Tensor")
    return tuple(items), None


def _span(t: torch.Tensor) -> tuple[int, int]:
    storage = t.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def aliasing_problem(outputs: tuple[torch.Tensor, ...], inputs: tuple[Any, ...]) -> Problem | None:
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
    for i, out in enumerate(outputs):
        lo, hi = _span(out)
        for j, inp in enumerate(tensors):
            ilo, ihi = _span(inp)
            if lo < ihi and ilo < hi and hi > lo:
                return ("D202", f"output {i} shares memory with input {j}")
    return None


def mutation_problem(inputs: tuple[Any, ...], originals: list[Any]) -> Problem | None:
    for j, (now, before) in enumerate(zip(inputs, originals)):
        if before is None:
            continue
        same = now.shape == before.shape and now.dtype == before.dtype and torch.equal(
            now.detach().contiguous().view(-1).view(torch.uint8),
            before.contiguous().view(-1).view(torch.uint8))
        if not same:
            return ("D201", f"input {j} was modified by the kernel")
    return None


def save_outputs(outputs: tuple[torch.Tensor, ...], path: Path) -> None:
    save_file({OUTPUT_KEY.format(i): o.detach().contiguous().cpu() for i, o in enumerate(outputs)},
              str(path))
