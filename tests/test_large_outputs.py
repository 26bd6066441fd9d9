"""Large outputs moved once (issue 24): the worker's streamed safetensors writer and the bwrap
supervisor's in-kernel copy-out. What the judge reads must be exactly what the candidate
returned, through safetensors' own parser; the budget of the copy-out still holds."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from kgb import protocol as P
from kgb.judge.judge import load_outputs
from kgb.sandbox import _supervisor
from kgb.worker import outputs as O


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return torch.equal(a.contiguous().reshape(-1).view(torch.uint8),
                       b.contiguous().reshape(-1).view(torch.uint8))


def _every_dtype() -> list[torch.Tensor]:
    names = O._dtype_names()
    assert names  # safetensors' own table is there: the streamed path is the one tested
    made = []
    for dtype in names:
        bits = torch.randint(0, 256, (5, 7), dtype=torch.uint8)
        size = torch.empty((), dtype=dtype).element_size()
        made.append(torch.randint(0, 256, (5, 7 * size), dtype=torch.uint8).view(dtype)
                    if size > 1 else bits.view(dtype) if dtype != torch.bool else bits > 127)
    return made


def test_every_dtype_and_shape_round_trips_bit_for_bit(tmp_path: Path):
    outputs = _every_dtype() + [
        torch.tensor(3.5),  # 0-dim
        torch.empty(0, 4),  # empty
        torch.arange(12.0).reshape(3, 4).t(),  # not contiguous
        torch.randn(3, 2, dtype=torch.complex64).conj(),  # a conjugate view
        -torch.randn(4, 2, dtype=torch.complex64).conj().imag,  # a negative-bit view
    ]
    path = tmp_path / P.output_file(0, 0)
    O.save_outputs(tuple(outputs), path)
    loaded = load_outputs(tmp_path, path.name, "cpu", 1 << 30)  # the judge's reader
    assert len(loaded) == len(outputs)
    for want, got in zip(outputs, loaded):
        want = want.resolve_conj().resolve_neg()
        assert _same(want, got), (want.dtype, want.shape)


def test_the_same_values_as_safetensors_own_writer(tmp_path: Path):
    outputs = (torch.randn(33, 17), torch.randint(-9, 9, (4,), dtype=torch.int64),
               torch.randn(2, 3).to(torch.bfloat16))
    O.save_outputs(outputs, tmp_path / "ours.safetensors")
    save_file({P.OUTPUT_KEY.format(i): t for i, t in enumerate(outputs)},
              str(tmp_path / "theirs.safetensors"))
    ours, theirs = load_file(str(tmp_path / "ours.safetensors")), \
        load_file(str(tmp_path / "theirs.safetensors"))
    assert sorted(ours) == sorted(theirs)
    assert all(_same(ours[k], theirs[k]) for k in ours)


def test_short_writes_are_finished(tmp_path: Path, monkeypatch):
    """os.write may write less than asked (a large output: at most ~2 GiB per call)."""
    real_write = os.write
    monkeypatch.setattr(O.os, "write", lambda fd, data: real_write(fd, bytes(data[:7])))
    out = torch.randn(100, 3)
    O.save_outputs((out,), tmp_path / "short.safetensors")
    monkeypatch.undo()
    assert _same(load_file(str(tmp_path / "short.safetensors"))[P.OUTPUT_KEY.format(0)], out)


def test_a_full_disk_is_still_out_of_room():
    with pytest.raises(OSError) as raised:
        O.save_outputs((torch.randn(1 << 16),), Path("/dev/full"))
    assert O.out_of_room(raised.value)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_dtype_safetensors_does_not_name_fails_as_before(tmp_path: Path):
    out = torch.quantize_per_tensor(torch.randn(4), 0.1, 0, torch.qint8)
    assert torch.qint8 not in (O._dtype_names() or {})  # the save_file path, as before
    with pytest.raises(Exception) as ours:
        O.save_outputs((out,), tmp_path / "q.safetensors")
    with pytest.raises(Exception) as theirs:
        save_file({"o": out.detach().contiguous().cpu()}, str(tmp_path / "q2.safetensors"))
    assert type(ours.value) is type(theirs.value)


def _copy(tmp_path: Path, budget: int) -> tuple[int, bytes]:
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(3 << 20) + b"tail")
    fin = os.open(src, os.O_RDONLY)
    fout = os.open(tmp_path / "dst.bin", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        copied = _supervisor._copy_file(fin, fout, budget)
    finally:
        os.close(fin)
        os.close(fout)
    assert (tmp_path / "dst.bin").read_bytes() == src.read_bytes()[:copied]
    return copied, src.read_bytes()


@pytest.mark.parametrize("sendfile", ["kernel", "refused"])
def test_copy_out_copies_every_byte_within_its_budget(tmp_path: Path, monkeypatch, sendfile):
    if sendfile == "refused":  # a filesystem where sendfile says EINVAL: the read/write loop
        def refuse(*_):
            raise OSError(errno.EINVAL, "sendfile refused")
        monkeypatch.setattr(_supervisor.os, "sendfile", refuse)
    copied, data = _copy(tmp_path, 1 << 30)
    assert copied == len(data)
    copied, _ = _copy(tmp_path, 1000)  # the output budget: never a byte more
    assert copied == 1000


def test_a_save_that_would_leave_no_room_for_the_result_is_refused(tmp_path: Path,
                                                                   monkeypatch):
    """An honest softmax under --jobs 4 on an H200 filled its output tmpfs to the last byte:
    the worker could not write result.json and the job was `crashed`. The worker now refuses
    (as out of room: kgb's storage limit, named) a save that would leave less than the
    result's reserve; the host's "had room" check counts the same reserve."""
    out = torch.randn(1000)
    need = out.numel() * out.element_size() + P.OUTPUT_HEADER_BYTES + P.RESULT_RESERVE_BYTES
    real = os.statvfs

    def free(nbytes: int):
        stat = real(tmp_path)
        return lambda folder: os.statvfs_result(
            (stat.f_bsize, 1, stat.f_blocks, nbytes, nbytes, *tuple(stat)[5:]))

    monkeypatch.setattr(O.os, "statvfs", free(need - 1))
    with pytest.raises(OSError) as raised:
        O.save_outputs((out,), tmp_path / "tight.safetensors")
    assert O.out_of_room(raised.value) and not (tmp_path / "tight.safetensors").exists()
    monkeypatch.setattr(O.os, "statvfs", free(need))
    O.save_outputs((out,), tmp_path / "fits.safetensors")
    assert _same(load_file(str(tmp_path / "fits.safetensors"))[P.OUTPUT_KEY.format(0)], out)
