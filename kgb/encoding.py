"""How one output file encodes each output (neutral: the worker writes it, kgb.worker.outputs;
the judge reads it, kgb.judge.encoded). Each output `i` is, in the file's safetensors entries:

- `out{i}`: the whole tensor;
- `out{i}.fill` (one element) and `out{i}.shape` (int64 dims): every element that bit pattern;
- `out{i}.index` (int64, strictly increasing flat positions) and `out{i}.value`: the case's
  primary output `i` with those elements replaced (only in a call after the primary's).

Bits, never values: NaN payloads and -0.0 travel as they were."""

from __future__ import annotations

import torch

FILL_KEY = "out{}.fill"
FILL_SHAPE_KEY = "out{}.shape"
DELTA_INDEX_KEY = "out{}.index"
DELTA_VALUE_KEY = "out{}.value"
# Outputs smaller than this are written whole: nothing to save, and the files stay plain.
ENCODE_MIN_BYTES = 4096

_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def bits_dtype(dtype: torch.dtype) -> torch.dtype | None:
    """An integer dtype of the same width to compare and copy `dtype`'s bits, or None (complex
    and other widths: written whole)."""
    try:
        if dtype.is_complex:
            return None
        width = torch.empty((), dtype=dtype).element_size()
    except (RuntimeError, TypeError):  # a dtype torch cannot make an element of
        return None
    return _BITS.get(width)
