"""What both workers do identically: load suite modules, regenerate a case's inputs from its
seed on the device, fingerprint them, and name the files outputs travel in."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

OUTPUT_KEY = "out{}"  # safetensors key of the i-th returned tensor


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


def generate_inputs(reference: ModuleType, case: dict, device: str) -> tuple[Any, ...]:
    gen = make_generator(device, case["seed"])
    inputs = reference.make_inputs(dict(case["dims"]), case["dtype"], gen, case["mode"])
    return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def fingerprint(inputs: tuple[Any, ...]) -> str:
    """sha256 over every input's dtype, shape and bytes (scalars by repr): both workers must
    report the same value, or the infrastructure — not the kernel — is at fault."""
    h = hashlib.sha256()
    for value in inputs:
        if isinstance(value, torch.Tensor):
            h.update(f"{value.dtype}{tuple(value.shape)}".encode())
            data = value.detach().contiguous().cpu().reshape(-1).view(torch.uint8)
            h.update(data.numpy().tobytes())
        else:
            h.update(repr(value).encode())
    return h.hexdigest()


def output_file(index: int) -> str:
    return f"case_{index:03d}.safetensors"
