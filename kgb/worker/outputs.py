"""What the worker looks at in what a candidate returned — evidence for layer 2 (threats 4, 9,
10, 11), decided on the trusted side — and the one way outputs leave it: safetensors files."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file

from kgb.encoding import (
    DELTA_INDEX_KEY,
    DELTA_VALUE_KEY,
    ENCODE_MIN_BYTES,
    FILL_KEY,
    FILL_SHAPE_KEY,
    bits_dtype,
)
from kgb.protocol import OUTPUT_HEADER_BYTES, OUTPUT_KEY, RESULT_RESERVE_BYTES


def poison_allocator(inputs: tuple[Any, ...], device: str) -> None:
    """Fill memory the allocator is about to hand out with 0xFF bytes (NaN in every float
    dtype): an output the kernel never writes then shows up as NaN instead of stale data that
    happens to be right (threats 4, 5). Exact on CUDA's caching allocator; best effort on CPU."""
    sizes = [t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor)]
    for nbytes in sorted(set(sizes + [1 << 16, 1 << 20])):
        block = torch.empty(nbytes, dtype=torch.uint8, device=device)
        block.fill_(0xFF)
        del block


def as_items(returned: Any) -> tuple[Any, ...]:
    """A call's return value as a tuple of outputs (a lone value is one output)."""
    return tuple(returned) if type(returned) in (tuple, list) else (returned,)


def type_names(items: tuple[Any, ...]) -> tuple[str, ...]:
    """The exact type of each output: anything but `torch.Tensor` (a subclass, a lazy proxy, a
    Python number) is refused on the trusted side (D203)."""
    return tuple(f"{type(i).__module__}.{type(i).__qualname__}" for i in items)



def _span(t: torch.Tensor) -> tuple[int, int]:
    storage = t.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def aliases(outputs: tuple[torch.Tensor, ...], inputs: tuple[Any, ...],
            inplace: tuple[int, ...] = ()) -> tuple[tuple[int, int], ...]:
    """(output index, input index) pairs whose storages overlap (threat 10). An in-place
    task's output k IS input inplace[k]: that one pair, and only it, is the contract."""
    found = []
    for i, out in enumerate(outputs):
        lo, hi = _span(out)
        for j, inp in enumerate(inputs):
            if not isinstance(inp, torch.Tensor) or (i < len(inplace) and inplace[i] == j):
                continue
            ilo, ihi = _span(inp)
            if lo < ihi and ilo < hi and hi > lo:
                found.append((i, j))
    return tuple(found)


def held_inplace(inputs: tuple[Any, ...], inplace: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Aliases of an in-place task's declared inputs, taken BEFORE the call: after it they
    are the outputs. An alias keeps the memory kgb handed over, so a candidate that rebinds
    the input (`p.set_(fresh)`, `resize_`) instead of writing it in place leaves the alias
    unchanged, and wrong."""
    return tuple(inputs[i].detach() for i in inplace)


def mutated(inputs: tuple[Any, ...], originals: list[Any],
            inplace: tuple[int, ...] = ()) -> tuple[int, ...]:
    """Indices of inputs whose bytes differ from the clone taken before the call (threat 9);
    the inputs an in-place task declares are meant to change."""
    changed = []
    for j, (now, before) in enumerate(zip(inputs, originals)):
        if before is None or j in inplace:
            continue
        same = now.shape == before.shape and now.dtype == before.dtype and torch.equal(
            now.detach().contiguous().view(-1).view(torch.uint8),
            before.contiguous().view(-1).view(torch.uint8))
        if not same:
            changed.append(j)
    return tuple(changed)


# Bytes moved per step from a GPU output to the file: a pinned staging buffer this size is
# all the host memory a GPU-sized output costs (not a whole host copy of it).
CHUNK_BYTES = 64 << 20


def flat_outputs(outputs: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """The outputs as the file holds them: contiguous, conjugation and negation resolved."""
    return tuple(o.detach().contiguous().resolve_conj().resolve_neg() for o in outputs)


def saved_copy(outputs: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """A private copy of outputs as their file will hold them, or the outputs themselves where
    a copy would buy nothing (too small to encode: kgb.encoding.ENCODE_MIN_BYTES). Later calls
    are encoded against this copy, never against memory the candidate may still write (an
    honest kernel reusing its output buffer rewrites the primary's outputs in the next call)."""
    flat = flat_outputs(outputs)
    if all(t.numel() * t.element_size() < ENCODE_MIN_BYTES for t in flat):
        return flat
    return tuple(t.clone() for t in flat)


def encode_outputs(flat: tuple[torch.Tensor, ...], base: tuple[torch.Tensor, ...] | None = None,
                   fill: bool = False) -> list[tuple[str, torch.Tensor]]:
    """The file's entries, each output in the fewest bytes that give its exact bits back
    (kgb.judge.encoded decodes them on the trusted side):

    - with `fill` (a ghost call), an output whose elements are all one bit pattern (what
      no-op launches leave in poisoned memory): that element and the shape;
    - given `base` (this case's primary outputs, a private copy), an output that differs from
      its counterpart in few elements (the same values in new storage, one element nudged):
      the positions and values that differ;
    - else the whole tensor.

    An encoding is only another way to write bytes the worker could have written whole: it
    gives the candidate no claim it could not make, and the judge checks what it decodes as
    it checks a whole file. A GPU-sized same-values or nudged call's outputs cost a few bytes
    instead of a full copy to the host and the disk (issue 24, "bytes moved once")."""
    entries: list[tuple[str, torch.Tensor]] = []
    for i, t in enumerate(flat):
        entries += _encoded(i, t, base[i] if base is not None and i < len(base) else None,
                            fill)
    return entries


def _encoded(i: int, t: torch.Tensor, twin: torch.Tensor | None,
             fill: bool) -> list[tuple[str, torch.Tensor]]:
    as_bits = bits_dtype(t.dtype)
    if as_bits is None or t.numel() * t.element_size() < ENCODE_MIN_BYTES:
        return [(OUTPUT_KEY.format(i), t)]
    bits = t.reshape(-1).view(as_bits)
    if twin is not None and twin.shape == t.shape and twin.dtype == t.dtype \
            and twin.device == t.device:
        where = torch.nonzero(bits != twin.reshape(-1).view(as_bits)).reshape(-1)
        if where.numel() * (8 + t.element_size()) * 2 <= t.numel() * t.element_size():
            # gathered as integers: advanced indexing need not support every float dtype
            # (float8 on some devices); the bits are the same
            return [(DELTA_INDEX_KEY.format(i), where.to(torch.int64)),
                    (DELTA_VALUE_KEY.format(i), bits[where].view(t.dtype))]
    if fill and bool((bits == bits[0]).all()):
        return [(FILL_KEY.format(i), t.reshape(-1)[:1].clone()),
                (FILL_SHAPE_KEY.format(i), torch.tensor(list(t.shape), dtype=torch.int64))]
    return [(OUTPUT_KEY.format(i), t)]


def save_outputs(outputs: tuple[torch.Tensor, ...], path: Path,
                 base: tuple[torch.Tensor, ...] | None = None, fill: bool = False) -> None:
    """The call's outputs as one safetensors file (read by the judge with safetensors' own
    parser; each output encoded by `encode_outputs`, with `base` and `fill`), written by a
    stream: a CPU output straight from its memory, a GPU output through a pinned buffer chunk
    by chunk — no whole host copy of a GPU-sized output (`.cpu()` of it made one, and
    safetensors before 0.6 copied it once more to bytes). On the CPU it costs what safetensors
    0.8's save_file does (A/B on tmpfs, 0.5 GiB: 2.6 s against 2.8 s). A dtype safetensors'
    table does not name, or a tensor on another device, goes through save_file as before (and
    fails there as before)."""
    names = _dtype_names()
    entries = encode_outputs(flat_outputs(outputs), base, fill)
    ensure_room(path.parent, sum(t.numel() * t.element_size() for _, t in entries))
    if names is None or any(t.dtype not in names or t.device.type not in ("cpu", "cuda")
                            for _, t in entries):
        save_file({key: t.cpu() for key, t in entries}, str(path))
        return
    header, offset = {}, 0
    for key, t in entries:
        size = t.numel() * t.element_size()
        header[key] = {"dtype": names[t.dtype], "shape": list(t.shape),
                       "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors writes it
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        _write_all(fd, struct.pack("<Q", len(text)) + text)
        staging: torch.Tensor | None = None
        for _, t in entries:
            raw = t.reshape(-1).view(torch.uint8)
            if raw.device.type == "cpu":
                _write_all(fd, raw.numpy())
                continue
            if staging is None:
                staging = torch.empty(min(CHUNK_BYTES, max(1, offset)), dtype=torch.uint8,
                                      pin_memory=True)
            for lo in range(0, raw.numel(), CHUNK_BYTES):
                part = raw[lo:lo + CHUNK_BYTES]
                buffer = staging[:part.numel()]
                buffer.copy_(part)  # synchronous: the buffer is written before it is reused
                _write_all(fd, buffer.numpy())
    finally:
        os.close(fd)


def ensure_room(folder: Path, nbytes: int) -> None:
    """Refuse (ENOSPC, out_of_room) a save that would leave the folder less than
    RESULT_RESERVE_BYTES: the case is then kgb's storage limit, named, and the job's result
    still gets written. A folder that outputs filled to the last byte left the worker unable to
    write its result, and the job was `crashed` (seen on an H200: the honest softmax under
    --jobs 4, whose share of the machine's memory for outputs was 16 GiB). Where the folder's
    free space cannot be read, the save is tried."""
    import errno

    try:
        st = os.statvfs(folder)
    except OSError:
        return
    free = st.f_bavail * st.f_frsize
    if free - nbytes - OUTPUT_HEADER_BYTES < RESULT_RESERVE_BYTES:
        raise OSError(errno.ENOSPC, f"No space left on device for {nbytes} bytes of outputs: "
                                    f"{free} bytes free in the output folder, of which "
                                    f"{RESULT_RESERVE_BYTES} stay for the job's result")


def _dtype_names() -> dict[torch.dtype, str] | None:
    """safetensors' own dtype names (its table, never a copy), or None where it has none."""
    try:
        from safetensors.torch import _TYPES
    except ImportError:  # pragma: no cover - another safetensors
        return None
    return {dtype: name for name, dtype in _TYPES.items()} if isinstance(_TYPES, dict) else None


def _write_all(fd: int, data: Any) -> None:
    view = memoryview(data).cast("B")
    while view:
        written = os.write(fd, view[:1 << 30])  # Linux writes at most ~2 GiB per call
        view = view[written:]


def out_of_room(exc: BaseException) -> bool:
    """The output folder's cap (a full tmpfs, RLIMIT_FSIZE), not a fault of the outputs."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return True
    text = str(exc)  # safetensors wraps the OS error in its own exception
    return "No space left on device" in text or "File too large" in text
