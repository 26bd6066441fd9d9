"""The worker's timing phase (kgb/worker/timing.py) around a full output folder, on the CPU with
the GPU loop replaced: seen on an H100 with KernelBench's 1.6 G-element softmax, where saving a
kept 6.4 GB timed output hit the folder's cap and the exception crashed the worker."""

from __future__ import annotations

import errno

import pytest
import torch

from kgb import protocol as P
from kgb.bench.timer import Loop
from kgb.worker import timing

CASE = P.CaseSpec("large-float32-standard", "large", {"M": 4, "N": 4}, "float32", "standard",
                  "contiguous", (P.CallSpec(P.CallKind.PRIMARY, 7),))


class Channel:
    def __init__(self) -> None:
        self.claims: list[tuple[str, int, int]] = []
        self.events: list[str] = []

    def mark(self, label: str) -> None:
        pass

    def lock(self) -> bool:  # the GPU's timing lock (kgb/runner/gpu_share.py)
        self.events.append("lock")
        return False

    def unlock(self) -> None:
        self.events.append("unlock")

    def commit(self, case: str, prints: list[str], nbytes: int) -> list[int]:
        self.claims.append((case, len(prints), nbytes))
        self.events.append("commit")
        return [1, 3]


@pytest.fixture
def worker_side(monkeypatch, tmp_path):
    outputs = [torch.full((4, 4), float(rep)) for rep in range(5)]
    monkeypatch.setattr(timing, "time_loop", lambda *a, **k: Loop([0.1] * 5, list(outputs), 3,
                                                                   1.0))
    monkeypatch.setattr(timing, "call_inputs", lambda *a, **k: (torch.zeros(4, 4),))
    monkeypatch.setattr(timing, "profile_call", lambda *a, **k: None)
    spec = P.JobSpec(task_id="t", inputs_path="inputs.py", layout_inputs=(), seed_input=None,
                     kernel_path="k.py", entry="run", device="cuda:0", interpreter=False,
                     out_dir=str(tmp_path), cases=(CASE,))
    return spec


def test_a_full_output_folder_is_recorded_not_raised(worker_side, monkeypatch):
    def full(outputs, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(timing, "save_outputs", full)
    channel = Channel()
    timed = timing._time_case(worker_side, 0, CASE, None, lambda x: x, channel, None)
    assert timed.kept == (1, 3) and "No space left on device" in timed.unsaved
    assert timed.unsaved.startswith("timed call 1")
    assert channel.claims == [(CASE.id, 5, 64)]  # the size of one call's outputs, committed


def test_any_other_save_failure_still_ends_the_worker(worker_side, monkeypatch):
    def broken(outputs, path):
        raise ValueError("not a tensor the format knows")

    monkeypatch.setattr(timing, "save_outputs", broken)
    with pytest.raises(ValueError):
        timing._time_case(worker_side, 0, CASE, None, lambda x: x, Channel(), None)


def test_the_timing_loop_and_the_profiled_call_each_hold_the_timing_lock(worker_side):
    """On a shared GPU the loop (with its commit) and the profiled call run in two windows of
    the GPU's timing lock; saving the kept outputs happens between them, unlocked."""
    channel = Channel()
    timing._time_case(worker_side, 0, CASE, None, lambda x: x, channel, None)
    assert channel.events == ["lock", "commit", "unlock", "lock", "unlock"]


def test_the_kept_outputs_are_saved_under_their_planned_names(worker_side, tmp_path):
    timed = timing._time_case(worker_side, 2, CASE, None, lambda x: x, Channel(), None)
    assert timed.unsaved is None
    assert sorted(p.name for p in tmp_path.iterdir()) == [P.timed_file(2, 1), P.timed_file(2, 3)]
