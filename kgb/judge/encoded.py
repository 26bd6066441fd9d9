"""The outputs of one call from the entries of its file (kgb.encoding), on the trusted side.

The file is untrusted: every entry is checked before anything is built from it, and what is
built is bounded by the output folder's cap, so a hostile file gives a ValueError (the call
`failed`, "unreadable outputs"), never a tensor larger than the candidate could have written
whole, and never a guess: a delta is applied only to the case's primary outputs as the judge
itself loaded them."""

from __future__ import annotations

import math
import re

import torch

from kgb.encoding import (
    DELTA_INDEX_KEY,
    DELTA_VALUE_KEY,
    FILL_KEY,
    FILL_SHAPE_KEY,
    bits_dtype,
)

_ENTRY = re.compile(r"^out(0|[1-9][0-9]{0,3})(\.fill|\.shape|\.index|\.value)?$")
_FORMS = {("",): "whole", (".fill", ".shape"): "fill", (".index", ".value"): "delta"}
NO_PRIMARY = ("a call's outputs are written against the primary call's, whose outputs did not "
              "load")


def decode_outputs(entries: dict[str, torch.Tensor], primary: list[torch.Tensor] | None,
                   cap: int) -> list[torch.Tensor]:
    """The outputs `out0..out{n-1}`, each whole, filled or the primary's with a delta."""
    parts: dict[int, dict[str, torch.Tensor]] = {}
    for key, tensor in entries.items():
        match = _ENTRY.match(key)
        if match is None:
            raise ValueError(f"unexpected tensor names {sorted(entries)[:4]}")
        parts.setdefault(int(match.group(1)), {})[match.group(2) or ""] = tensor
    if sorted(parts) != list(range(len(parts))):
        raise ValueError(f"unexpected tensor names {sorted(entries)[:4]}")
    outputs = []
    for i in range(len(parts)):
        form = _FORMS.get(tuple(sorted(parts[i])))
        if form is None:
            raise ValueError(f"output {i}: entries {sorted(parts[i])} are no encoding")
        if form == "whole":
            outputs.append(parts[i][""])
        elif form == "fill":
            outputs.append(_filled(i, parts[i][".fill"], parts[i][".shape"], cap, primary))
        else:
            if primary is None or i >= len(primary):
                raise ValueError(NO_PRIMARY)
            outputs.append(_patched(i, primary[i], parts[i][".index"], parts[i][".value"]))
    return outputs


def _filled(i: int, fill: torch.Tensor, shape: torch.Tensor, cap: int,
            primary: list[torch.Tensor] | None) -> torch.Tensor:
    """A fill is no larger than the case's primary output, which the worker wrote whole (a
    ghost call runs on the primary's inputs): a few bytes of file must not claim a tensor
    larger than one the candidate paid for, which the judge would have to hold (on a GPU
    judge, an out-of-memory failure on kgb's side instead of the call's verdict). Not its
    shape: a kernel whose output's size is computed on the device may size its ghost output
    otherwise."""
    if fill.numel() != 1 or shape.dtype != torch.int64 or shape.dim() != 1 \
            or bits_dtype(fill.dtype) is None:
        raise ValueError(f"output {i}: a fill needs one element and int64 dims "
                         f"({FILL_KEY.format(i)}, {FILL_SHAPE_KEY.format(i)})")
    dims = [int(d) for d in shape.tolist()]
    if any(d < 0 for d in dims) or math.prod(dims) * fill.element_size() > cap:
        raise ValueError(f"output {i}: a fill of shape {dims[:8]} is negative or over the "
                         "size cap")
    if primary is None or i >= len(primary) or math.prod(dims) > primary[i].numel():
        raise ValueError(f"output {i}: a fill of shape {dims[:8]} is larger than the case's "
                         "primary output")
    return fill.reshape(()).expand(dims).contiguous()


def _patched(i: int, base: torch.Tensor, index: torch.Tensor,
             value: torch.Tensor) -> torch.Tensor:
    bits = bits_dtype(base.dtype)
    if bits is None or value.dtype != base.dtype or index.dtype != torch.int64 \
            or index.dim() != 1 or value.dim() != 1 or index.numel() != value.numel() \
            or index.numel() > base.numel():
        raise ValueError(f"output {i}: a delta needs int64 positions and as many values of the "
                         f"primary's dtype ({DELTA_INDEX_KEY.format(i)}, "
                         f"{DELTA_VALUE_KEY.format(i)})")
    if index.numel() and (int(index[0]) < 0 or int(index[-1]) >= base.numel()
                          or not bool((index[1:] > index[:-1]).all())):
        raise ValueError(f"output {i}: delta positions out of range or not increasing")
    patched = base.detach().contiguous().clone()
    patched.reshape(-1).view(bits)[index.to(patched.device)] = \
        value.to(patched.device).view(bits)
    return patched

