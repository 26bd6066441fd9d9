"""Output files that hold a call's outputs in fewer bytes (kgb.encoding): the worker writes a
filled output as one element, and a same-values or nudged call's outputs as the few elements
that differ from the case's primary; the judge gets every bit back, and a hostile file is
refused, never built into a tensor larger than the cap or patched onto anything but the
primary the judge itself loaded."""

from __future__ import annotations

import os

import pytest
import torch
from safetensors.torch import load_file, save_file

from kgb.encoding import ENCODE_MIN_BYTES
from kgb.judge.encoded import NO_PRIMARY, decode_outputs
from kgb.worker.outputs import save_outputs, saved_copy

CAP = 1 << 30


def _round_trip(tmp_path, outputs, base=None, primary=None, fill=False):
    path = tmp_path / "call.safetensors"
    save_outputs(tuple(outputs), path, base, fill)
    entries = load_file(str(path))
    return decode_outputs(entries, primary if primary is not None else
                          (list(base) if base is not None else None), CAP), entries, path


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        a.contiguous().view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int64,
                                   torch.bool, torch.float8_e4m3fn])
def test_a_nudged_call_is_written_as_its_difference_and_read_back_bit_for_bit(tmp_path, dtype):
    primary = (torch.randn(64, 512) * 4).to(dtype)
    nudged = primary.clone()
    nudged[7] = (torch.randn(512) * 4).to(dtype)  # one row moved, as a nudged input moves it
    nudged.view(-1)[:3] = primary.view(-1)[:3]
    if dtype.is_floating_point:
        nudged[9, 5] = float("nan")  # bits, not values, travel
        nudged[9, 6] = -0.0
    base = saved_copy((primary,))
    (decoded,), entries, path = _round_trip(tmp_path, (nudged,), base)
    assert _same_bits(decoded, nudged)
    assert set(entries) == {"out0.index", "out0.value"}
    assert os.path.getsize(path) < primary.numel() * primary.element_size() / 4


def test_the_same_values_again_cost_no_bytes_and_a_different_answer_is_written_whole(tmp_path):
    primary = torch.randn(256, 256)
    base = saved_copy((primary,))
    (same,), entries, path = _round_trip(tmp_path, (primary.clone(),), base)
    assert _same_bits(same, primary) and entries["out0.index"].numel() == 0
    assert os.path.getsize(path) < 1024
    other = torch.randn(256, 256)  # fresh inputs: everything differs
    (decoded,), entries, _ = _round_trip(tmp_path, (other,), base)
    assert _same_bits(decoded, other) and set(entries) == {"out0"}


def test_a_kernel_that_reuses_its_output_buffer_is_encoded_against_what_was_saved(tmp_path):
    """An honest kernel returns the same buffer every call: the nudged call rewrites the
    primary's returned tensor. Encoded against that live memory the delta would be empty and
    the judge would read the primary's answer for the nudged call; against the private copy
    taken at the primary's save it is exact."""
    buffer = torch.randn(128, 128)
    base = saved_copy((buffer,))  # the primary call returned `buffer`
    saved_primary = base[0].clone()
    buffer[3] += 1.0  # the nudged call writes its answer into the same buffer
    (decoded,), _, _ = _round_trip(tmp_path, (buffer,), base, primary=[saved_primary])
    assert _same_bits(decoded, buffer) and not _same_bits(decoded, saved_primary)


def test_a_ghost_calls_constant_output_is_one_element_and_small_outputs_stay_whole(tmp_path):
    poisoned = torch.full((300, 301), float("nan"))  # what no-op launches leave (0xFF bytes)
    poisoned.view(torch.int32).fill_(-1)
    primary = [torch.zeros(300, 301)]  # the case's primary output, loaded whole before
    (decoded,), entries, path = _round_trip(tmp_path, (poisoned,), primary=primary, fill=True)
    assert _same_bits(decoded, poisoned) and set(entries) == {"out0.fill", "out0.shape"}
    assert os.path.getsize(path) < 1024
    (decoded,), entries, _ = _round_trip(tmp_path, (poisoned,))  # not a ghost: not looked at
    assert _same_bits(decoded, poisoned) and set(entries) == {"out0"}
    small = torch.zeros(ENCODE_MIN_BYTES // 8)
    (decoded,), entries, _ = _round_trip(tmp_path, (small,), fill=True)
    assert _same_bits(decoded, small) and set(entries) == {"out0"}


def test_outputs_of_several_forms_in_one_file(tmp_path):
    a, b, c = torch.randn(64, 64), torch.zeros(64, 64, dtype=torch.int32), torch.randn(3)
    base = saved_copy((a, torch.ones(64, 64, dtype=torch.int32), c))
    moved = a.clone()
    moved[0, 0] = 5.0
    decoded, entries, _ = _round_trip(tmp_path, (moved, b, c), base, fill=True)
    assert [_same_bits(x, y) for x, y in zip(decoded, (moved, b, c))] == [True] * 3
    assert set(entries) == {"out0.index", "out0.value", "out1.fill", "out1.shape", "out2"}


def _decode(entries, primary=None, cap=CAP):
    return decode_outputs(entries, primary, cap)


@pytest.mark.parametrize("entries, primary, why", [
    ({"out0.fill": torch.zeros(1), "out0.shape": torch.tensor([1 << 40])}, None, "size cap"),
    ({"out0.fill": torch.zeros(1), "out0.shape": torch.tensor([-4, -4])}, None, "negative"),
    ({"out0.fill": torch.zeros(2), "out0.shape": torch.tensor([4])}, None, "one element"),
    ({"out0.fill": torch.zeros(1), "out0.shape": torch.tensor([4.0])}, None, "one element"),
    # a fill is no larger than the primary output: a few bytes never claim more than it
    ({"out0.fill": torch.zeros(1), "out0.shape": torch.tensor([4])}, None, "primary output"),
    ({"out0.fill": torch.zeros(1), "out0.shape": torch.tensor([1 << 20, 64])},
     [torch.zeros(8, 8)], "primary output"),
    ({"out1.fill": torch.zeros(1), "out1.shape": torch.tensor([8, 8]), "out0": torch.zeros(1)},
     [torch.zeros(8, 8)], "primary output"),
    ({"out0.index": torch.tensor([0, 1]), "out0.value": torch.zeros(2)}, None, NO_PRIMARY),
    ({"out0.index": torch.tensor([64]), "out0.value": torch.zeros(1)},
     [torch.zeros(8, 8)], "out of range"),
    ({"out0.index": torch.tensor([-1]), "out0.value": torch.zeros(1)},
     [torch.zeros(8, 8)], "out of range"),
    ({"out0.index": torch.tensor([3, 3]), "out0.value": torch.zeros(2)},
     [torch.zeros(8, 8)], "not increasing"),
    ({"out0.index": torch.tensor([3]), "out0.value": torch.zeros(1, dtype=torch.float64)},
     [torch.zeros(8, 8)], "primary's dtype"),
    ({"out0.index": torch.tensor([3], dtype=torch.int32), "out0.value": torch.zeros(1)},
     [torch.zeros(8, 8)], "int64 positions"),
    ({"out1.index": torch.tensor([0]), "out1.value": torch.zeros(1), "out0": torch.zeros(1)},
     [torch.zeros(8, 8)], NO_PRIMARY),
    ({"out0": torch.zeros(1), "out0.fill": torch.zeros(1), "out0.shape": torch.tensor([1])},
     None, "no encoding"),
    ({"out0.index": torch.tensor([0])}, [torch.zeros(8, 8)], "no encoding"),
    ({"out1": torch.zeros(1)}, None, "unexpected tensor names"),
    ({"out00": torch.zeros(1)}, None, "unexpected tensor names"),
    ({"out0": torch.zeros(1), "junk": torch.zeros(1)}, None, "unexpected tensor names"),
])
def test_a_hostile_file_is_refused_with_its_reason(entries, primary, why):
    with pytest.raises(ValueError, match=why):
        _decode(entries, primary)


def test_a_delta_patches_a_copy_never_the_judges_primary(tmp_path):
    primary = [torch.zeros(16, 16)]
    (out,) = _decode({"out0.index": torch.tensor([5]), "out0.value": torch.ones(1)}, primary)
    assert out.view(-1)[5] == 1 and primary[0].count_nonzero() == 0


def test_a_file_written_whole_by_older_workers_still_reads(tmp_path):
    path = tmp_path / "old.safetensors"
    save_file({"out0": torch.arange(10.0), "out1": torch.ones(2)}, str(path))
    decoded = _decode(load_file(str(path)))
    assert _same_bits(decoded[0], torch.arange(10.0)) and len(decoded) == 2
