"""The worker's timing phase (kgb/worker/timing.py) around a full output folder, on the CPU with
the GPU loop replaced: seen on an H100 with KernelBench's 1.6 G-element softmax, where saving a
kept 6.4 GB timed output hit the folder's cap and the exception crashed the worker."""

from __future__ import annotations

import errno
from dataclasses import replace

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
    timed = timing._time_case(worker_side, 0, CASE, None, lambda x: x, timing._Window(channel), None)
    assert timed.kept == (1, 3) and "No space left on device" in timed.unsaved
    assert timed.unsaved.startswith("timed call 1")
    assert channel.claims == [(CASE.id, 5, 64)]  # the size of one call's outputs, committed


def test_any_other_save_failure_still_ends_the_worker(worker_side, monkeypatch):
    def broken(outputs, path):
        raise ValueError("not a tensor the format knows")

    monkeypatch.setattr(timing, "save_outputs", broken)
    with pytest.raises(ValueError):
        timing._time_case(worker_side, 0, CASE, None, lambda x: x, timing._Window(Channel()),
                          None)


def _time_two_cases(spec, channel, monkeypatch, saved: list[str]):
    def save(outputs, path):
        saved.append(path.name)
        channel.events.append("save")

    monkeypatch.setattr(timing, "save_outputs", save)
    monkeypatch.setattr(timing, "_timeable", lambda case, record: True)
    monkeypatch.setattr(timing, "L2Reset", lambda device: None)  # no GPU here
    other = P.CaseSpec("other-float32-standard", "large", {"M": 4, "N": 4}, "float32",
                       "standard", "contiguous", (P.CallSpec(P.CallKind.PRIMARY, 8),))
    spec = replace(spec, cases=(CASE, other))
    return timing.timed_cases(spec, [None, None], None, lambda x: x, channel)


def test_one_window_of_the_timing_lock_covers_a_jobs_run_of_timed_cases(worker_side,
                                                                        monkeypatch):
    """On a shared GPU each grant freezes the other jobs and drains the GPU: the loops, the
    saves of small kept outputs and the profiled calls of consecutive cases share one window
    (the save still before the profiled call, which may reuse the output buffer), given back
    once at the end."""
    channel, saved = Channel(), []
    timed = _time_two_cases(worker_side, channel, monkeypatch, saved)
    assert [t.case for t in timed] == [CASE.id, "other-float32-standard"]
    assert channel.events == ["lock", "commit", "save", "save", "commit", "save", "save",
                              "unlock"]
    assert saved == [P.timed_file(0, 1), P.timed_file(0, 3), P.timed_file(1, 1),
                     P.timed_file(1, 3)]


def test_a_large_save_gives_the_timing_lock_back_meanwhile(worker_side, monkeypatch):
    monkeypatch.setattr(timing, "SAVE_IN_WINDOW_BYTES", 100)  # two kept 64-byte outputs: 128
    channel = Channel()
    _time_two_cases(worker_side, channel, monkeypatch, [])
    assert channel.events == ["lock", "commit", "unlock", "save", "save", "lock",
                              "commit", "unlock", "save", "save", "lock", "unlock"]


def test_an_error_while_timing_gives_the_timing_lock_back(worker_side, monkeypatch):
    def broken(outputs, path):
        raise ValueError("not a tensor the format knows")

    monkeypatch.setattr(timing, "save_outputs", broken)
    monkeypatch.setattr(timing, "_timeable", lambda case, record: True)
    monkeypatch.setattr(timing, "L2Reset", lambda device: None)
    channel = Channel()
    with pytest.raises(ValueError):
        timing.timed_cases(worker_side, [None], None, lambda x: x, channel)
    assert channel.events == ["lock", "commit", "unlock"]


def test_the_kept_outputs_are_saved_under_their_planned_names(worker_side, tmp_path):
    timed = timing._time_case(worker_side, 2, CASE, None, lambda x: x,
                              timing._Window(Channel()), None)
    assert timed.unsaved is None
    assert sorted(p.name for p in tmp_path.iterdir()) == [P.timed_file(2, 1), P.timed_file(2, 3)]


def test_a_held_tenant_readies_the_gpu_and_the_profiler_before_go_and_no_one_else(monkeypatch):
    """kgb/worker/main.py `_ready_device`: the ~4 s of the first profiler session (CUPTI's
    start) is paid while held — only where the host made the held sandbox a tenant of its GPU
    (KGB_HOLD and KGB_HOLD_DEVICE) and the job will profile a call (timed, on a GPU, a timeable
    case); on kgb's own op, before the candidate is imported."""
    from kgb.worker import main as worker_main

    seen: list[str] = []
    monkeypatch.setattr(worker_main.torch, "empty", lambda *a, **k: seen.append("context"))
    monkeypatch.setattr(worker_main.torch.cuda, "synchronize", lambda *a, **k: None)
    monkeypatch.setattr(worker_main, "profile_call",
                        lambda call, sync: seen.append("profiler"))
    spec = P.JobSpec(task_id="t", inputs_path="inputs.py", layout_inputs=(), seed_input=None,
                     kernel_path="k.py", entry="run", device="cuda:0", interpreter=False,
                     out_dir="out", cases=(CASE,))
    tenant = {"KGB_HOLD": "1", "KGB_HOLD_DEVICE": "1"}
    assert worker_main._ready_device(spec, tenant) and seen == ["context", "profiler"]
    untimeable = replace(CASE, mode="outliers")
    for environ, job in [({"KGB_HOLD": "1"}, spec),  # held, but not a tenant: hands off
                         ({"KGB_HOLD_DEVICE": "1"}, spec),  # not held (Sandbox.run)
                         (tenant, replace(spec, timing=False)),  # --timing off: no profiling
                         (tenant, replace(spec, device="cpu", interpreter=True)),
                         (tenant, replace(spec, cases=(untimeable,)))]:
        seen.clear()
        assert not worker_main._ready_device(job, environ) and not seen, (environ, job)

    def no_memory(*a, **k):
        raise torch.OutOfMemoryError("CUDA out of memory")

    # A failure while held is left for the run to meet after `go`, never the worker's end
    monkeypatch.setattr(worker_main.torch, "empty", no_memory)
    assert not worker_main._ready_device(spec, tenant)


class SharedChannel(Channel):
    def lock(self) -> bool:  # granted: the GPU is shared
        self.events.append("lock")
        return True


def test_on_a_shared_gpu_large_kept_outputs_are_copied_in_the_window_and_saved_after_it(
        worker_side, monkeypatch, tmp_path):
    """Giving the lock back to save each case's large kept outputs and taking it again for
    its profiled call cost a grant per case (the other jobs frozen, the GPU drained). On a
    shared GPU they are copied on the device inside the one window and saved once it is
    given back — copies, so a kernel that reuses its output buffer in the profiled call or
    the next case does not change what the judge re-checks."""
    from safetensors.torch import load_file

    monkeypatch.setattr(timing, "SAVE_IN_WINDOW_BYTES", 100)  # two kept 64-byte outputs: 128
    monkeypatch.setattr(timing, "_timeable", lambda case, record: True)
    monkeypatch.setattr(timing, "L2Reset", lambda device: None)
    outputs = [torch.full((4, 4), float(rep)) for rep in range(5)]
    monkeypatch.setattr(timing, "time_loop", lambda *a, **k: Loop([0.1] * 5, list(outputs), 3,
                                                                   1.0))
    channel = SharedChannel()

    def profiled(*args, **kwargs):  # the candidate's next call writes its old buffers
        channel.events.append("profile")
        for out in outputs:
            out.fill_(99.0)

    monkeypatch.setattr(timing, "profile_call", profiled)
    other = P.CaseSpec("other-float32-standard", "large", {"M": 4, "N": 4}, "float32",
                       "standard", "contiguous", (P.CallSpec(P.CallKind.PRIMARY, 8),))
    timed = timing.timed_cases(replace(worker_side, cases=(CASE, other)), [None, None], None,
                               lambda x: x, channel)
    assert channel.events == ["lock", "commit", "profile", "commit", "profile", "unlock"]
    assert all(t.unsaved is None for t in timed)
    for index, rep in ((0, 1), (0, 3)):  # the first case's, written before the 99s
        saved = load_file(str(tmp_path / P.timed_file(index, rep)))["out0"]
        assert torch.equal(saved, torch.full((4, 4), float(rep))), (index, rep)
    assert (tmp_path / P.timed_file(1, 1)).is_file()


def test_kept_outputs_over_the_copy_budget_give_the_lock_back_to_be_saved(worker_side,
                                                                          monkeypatch):
    monkeypatch.setattr(timing, "SAVE_IN_WINDOW_BYTES", 100)
    monkeypatch.setattr(timing, "COPY_IN_WINDOW_BYTES", 200)  # the first case's 128 fit
    channel = SharedChannel()
    _time_two_cases(worker_side, channel, monkeypatch, [])
    assert channel.events == ["lock", "commit", "commit", "unlock", "save", "save", "lock",
                              "unlock", "save", "save"]


def test_a_full_folder_found_after_the_window_is_recorded_for_its_case(worker_side,
                                                                       monkeypatch):
    def full(outputs, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(timing, "SAVE_IN_WINDOW_BYTES", 100)
    monkeypatch.setattr(timing, "save_outputs", full)
    monkeypatch.setattr(timing, "_timeable", lambda case, record: True)
    monkeypatch.setattr(timing, "L2Reset", lambda device: None)
    timed = timing.timed_cases(worker_side, [None], None, lambda x: x, SharedChannel())
    assert timed[0].unsaved.startswith("timed call 1") and "No space" in timed[0].unsaved


class _Sub(torch.Tensor):
    """A tensor subclass: its methods are the candidate's code."""

    def clone(self, *args, **kwargs):
        raise AssertionError("a method of the candidate's output ran in the window")


def test_a_kept_output_that_is_no_plain_tensor_is_neither_copied_nor_saved(worker_side,
                                                                           monkeypatch,
                                                                           tmp_path):
    monkeypatch.setattr(timing, "SAVE_IN_WINDOW_BYTES", 100)
    monkeypatch.setattr(timing, "_timeable", lambda case, record: True)
    monkeypatch.setattr(timing, "L2Reset", lambda device: None)
    outputs = [torch.full((4, 4), float(rep)) for rep in range(5)]
    outputs[1] = outputs[1].as_subclass(_Sub)
    monkeypatch.setattr(timing, "time_loop", lambda *a, **k: Loop([0.1] * 5, list(outputs), 3,
                                                                   1.0))
    timed = timing.timed_cases(worker_side, [None], None, lambda x: x, SharedChannel())
    assert timed[0].unsaved is None
    assert not (tmp_path / P.timed_file(0, 1)).exists()  # the judge finds it missing
    assert (tmp_path / P.timed_file(0, 3)).is_file()
