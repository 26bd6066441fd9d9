"""How a case becomes inputs, identically in both workers: load the task's `inputs.py`, draw
from the case seed with an explicit generator on the device, give the inputs the layout the case
asks for, and fingerprint them.

Neutral zone: imported by the untrusted candidate worker and by the trusted judge alike, so it
imports only the standard library and torch — never a task's reference, never kgb's trusted
code. A task's `inputs.py` holds no reference either (docs/formats.md)."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from kgb.protocol import CONTIGUOUS, LAYOUTS, PADDED, TRANSPOSED  # noqa: F401 (re-exported)

PAD_BYTES = 32  # keeps a 16-byte-aligned row stride 16-byte aligned (TMA, vector loads)


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, str(path))
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def make_generator(device: str, seed: int) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


def generate_inputs(inputs_module: ModuleType, dims: Mapping[str, int], dtype: str, mode: str,
                    seed: int, device: str, layout: str = CONTIGUOUS,
                    layout_inputs: Sequence[int] = ()) -> tuple[Any, ...]:
    """The inputs of a case's primary call: `make_inputs(dims, dtype, gen, mode)` from `seed`,
    then the tensors at `layout_inputs` re-laid out as `layout` (same values, other strides)."""
    return call_inputs(inputs_module, dims, dtype, mode, layout, layout_inputs, None, device,
                       seed)


def call_inputs(inputs_module: ModuleType, dims: Mapping[str, int], dtype: str, mode: str,
                layout: str, layout_inputs: Sequence[int], seed_input: int | None, device: str,
                seed: int, perturb_seed: int | None = None,
                seed_value: int | None = None) -> tuple[Any, ...]:
    """The inputs of one call of a case (kgb.protocol.CallSpec): drawn from `seed`; for a
    near-equal call one element nudged; for a reseed call the task's seed argument replaced;
    then laid out as the case asks."""
    gen = make_generator(device, seed)
    made = inputs_module.make_inputs(dict(dims), dtype, gen, mode)
    inputs = tuple(made) if isinstance(made, (tuple, list)) else (made,)
    if perturb_seed is not None:
        inputs = nudge(inputs, perturb_seed)
    if seed_value is not None and seed_input is not None and seed_input < len(inputs):
        inputs = inputs[:seed_input] + (seed_value,) + inputs[seed_input + 1:]
    if layout == CONTIGUOUS:
        return inputs
    return tuple(relayout(value, layout) if i in layout_inputs else value
                 for i, value in enumerate(inputs))


def nudge(inputs: tuple[Any, ...], perturb_seed: int) -> tuple[Any, ...]:
    """A copy of `inputs` with one element of the largest floating tensor halved (a zero
    becomes one): near-equal values that a cache keyed on sampled elements mistakes for the
    originals, while the right answer changes beyond any tolerance."""
    floats = [(t.numel(), i) for i, t in enumerate(inputs)
              if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel() > 0]
    if not floats:
        return inputs
    _, index = max(floats)
    target = inputs[index].clone(memory_format=torch.contiguous_format)
    flat = target.view(-1)
    position = perturb_seed % flat.numel()
    value = flat[position]
    # through float32: float8 tensors have no arithmetic of their own (halving stays exact)
    wide = value.float()
    flat[position] = torch.where(wide == 0, torch.ones_like(wide), wide * 0.5).to(value.dtype)
    return inputs[:index] + (target,) + inputs[index + 1:]


def relayout(value: Any, layout: str) -> Any:
    """`value` with the same elements in non-contiguous storage; anything that cannot take the
    layout (a scalar, a 0-d tensor, a 1-d tensor asked to transpose) is returned unchanged."""
    if not isinstance(value, torch.Tensor) or value.dim() == 0:
        return value
    if layout == PADDED:
        pad = max(1, PAD_BYTES // value.element_size())
        shape = (*value.shape[:-1], value.shape[-1] + pad)
        storage = torch.empty(shape, dtype=value.dtype, device=value.device)
        if storage.is_floating_point():
            storage.fill_(float("nan"))  # a kernel that reads the padding gets NaN
        else:
            storage.fill_(torch.iinfo(storage.dtype).max if storage.dtype != torch.bool else 1)
        view = storage[..., : value.shape[-1]]
        view.copy_(value)
        return view
    if layout == TRANSPOSED:
        if value.dim() < 2:
            return value
        shape = (*value.shape[:-2], value.shape[-1], value.shape[-2])
        view = torch.empty(shape, dtype=value.dtype, device=value.device).transpose(-1, -2)
        view.copy_(value)
        return view
    raise ValueError(f"unknown layout {layout!r}")


def fingerprint(inputs: tuple[Any, ...]) -> str:
    """A digest of every input's dtype, shape, strides and values (scalars by repr): both
    workers must report the same value, or the infrastructure — not the kernel — is at fault.

    Tensors are reduced on their own device to two wrapping int64 sums of their 8-byte words
    (plain and position-weighted), so multi-GB CUDA inputs never cross to the host. Integer
    addition modulo 2**64 is order-independent, hence deterministic however the reduction is
    split. This guards against nondeterministic input generation, not against an adversary:
    nothing verdict-relevant rests on a value the untrusted worker reports."""
    h = hashlib.sha256()
    for value in inputs:
        if isinstance(value, torch.Tensor):
            h.update(f"{value.dtype}{tuple(value.shape)}{value.stride()}".encode())
            h.update(_word_sums(value).encode())
        else:
            h.update(repr(value).encode())
    return h.hexdigest()


def _word_sums(tensor: torch.Tensor) -> str:
    raw = tensor.detach().reshape(-1).contiguous().view(torch.uint8)
    pad = (-raw.numel()) % 8
    if pad or raw.storage_offset() % 8:
        raw = torch.cat([raw, raw.new_zeros(pad)])
    words = raw.view(torch.int64)
    weights = torch.arange(words.numel(), device=words.device, dtype=torch.int64)
    weights.mul_(0x9E3779B97F4A7C15 - (1 << 64)).add_(0x632BE59BD9B4E019)  # golden-ratio mix
    plain = int(words.sum())
    weighted = int((words * weights).sum())
    return f"{words.numel()}:{plain}:{weighted}"



def timed_seed(case_seed: int, rep: int) -> int:
    """The seed of timed call `rep` of a case (0: the warm-up inputs): distinct values for every
    timed call, the same on both sides."""
    digest = hashlib.sha256(f"{case_seed}:timed:{rep}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def outputs_fingerprint(outputs: tuple[Any, ...]) -> str:
    """A fingerprint of output values whatever their strides (the judge reads them back from
    contiguous safetensors copies)."""
    return fingerprint(tuple(o.contiguous() if isinstance(o, torch.Tensor) else o
                             for o in outputs))
