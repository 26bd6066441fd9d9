"""The worker's timing phase on a GPU (kgb.bench): after the cases, each standard case whose
primary call returned is timed on fresh inputs; the fingerprints of every timed call's outputs
are committed to the supervisor, which picks the calls whose outputs are saved for the judge to
re-check; one more call runs under the profiler for the second clock and the kernel names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kgb import protocol as P
from kgb.bench.channel import Channel
from kgb.bench.l2 import L2Reset
from kgb.bench.profiler import profile_call
from kgb.bench.timer import capture_clocks, output_bytes, time_loop
from kgb.tasks.casegen import call_inputs, outputs_fingerprint, timed_seed
from kgb.worker.outputs import as_items, held_inplace, out_of_room, save_outputs, type_names

capture = capture_clocks


def timed_cases(spec: P.JobSpec, records: list[P.CaseRecord], task_inputs: Any,
                entry: Callable, channel: Channel) -> tuple[P.TimedCase, ...]:
    import torch

    reset = L2Reset(torch.device(spec.device))
    timed = []
    window = _Window(channel)
    later = _Later(spec)
    try:
        for index, (case, record) in enumerate(zip(spec.cases, records)):
            if not _timeable(case, record):
                continue
            timed.append(_time_case(spec, index, case, task_inputs, entry, window, reset,
                                    later))
    finally:
        window.give()
    unsaved = later.save()  # outside the window: the other jobs run meanwhile
    return tuple(replace(t, unsaved=unsaved[t.case]) if t.case in unsaved else t
                 for t in timed)


# Kept outputs up to this size are saved inside the timing window (milliseconds); larger ones
# are saved with the lock given back, so the other jobs on the GPU are not frozen meanwhile.
SAVE_IN_WINDOW_BYTES = 64 << 20
# On a shared GPU, larger kept outputs up to this much in all are copied on the device inside
# the window (milliseconds) and saved after it: giving the lock back to save and taking it
# again for the profiled call cost a grant per case (every other job frozen, the GPU
# drained: ~0.3 s of the GPU's serial time each on an H200, run 25).
COPY_IN_WINDOW_BYTES = 2 << 30


class _Window:
    """The GPU's timing lock, held from one timed case into the next (on a shared GPU,
    kgb/runner/gpu_share.py): each grant freezes every other job and waits for the GPU to
    drain, so a job asks once for its run of timed cases rather than twice per case (an
    H200 run: ~60 grants for matmul's 30 timed cases left three jobs sharing the GPU barely
    faster than one at a time, docs/gpu.md run 19). Where the GPU is not shared the channel
    answers at once and nothing is held. `shared`: a grant came (the GPU is shared)."""

    def __init__(self, channel: Channel) -> None:
        self.channel, self.held, self.shared = channel, False, False

    def take(self) -> None:
        if not self.held:
            self.shared = self.channel.lock() or self.shared
            self.held = True

    def give(self) -> None:
        if self.held:
            self.channel.unlock()
            self.held = False

    def commit(self, case: str, fingerprints: list[str], nbytes: int) -> list[int]:
        return self.channel.commit(case, fingerprints, nbytes)

    def mark(self, label: str) -> None:
        self.channel.mark(label)


class _Later:
    """Kept timed outputs copied on the device inside the window, saved once it is given
    back (COPY_IN_WINDOW_BYTES): private copies, so a kernel that reuses its output buffer in
    the profiled call or the next case does not change what the judge re-checks."""

    def __init__(self, spec: P.JobSpec) -> None:
        self.spec = spec
        self.copies: list[tuple[str, int, int, tuple]] = []  # case id, case index, rep, outputs
        self.nbytes = 0

    def hold(self, case: str, index: int, kept: list[int], outputs: list, size: int) -> bool:
        """Copy the kept calls' outputs if they fit the budget and the device's memory."""
        import torch

        if self.nbytes + size > COPY_IN_WINDOW_BYTES:
            return False
        copies = []
        try:
            for rep in kept:
                items = as_items(outputs[rep])
                # only plain tensors are saved (and copied): anything else is the judge's to
                # refuse, and none of its methods is called here
                plain = all(t == P.PLAIN_TENSOR for t in type_names(items))
                copies.append((case, index, rep,
                               tuple(o.clone() for o in items) if plain else items))
        except torch.cuda.OutOfMemoryError:
            return False
        self.copies += copies
        self.nbytes += size
        return True

    def save(self) -> dict[str, str]:
        """Save every held copy; per case, what could not be saved (as `_save_one` says)."""
        unsaved: dict[str, str] = {}
        for case, index, rep, items in self.copies:
            if case not in unsaved:
                problem = _save_one(self.spec, index, rep, items)
                if problem is not None:
                    unsaved[case] = problem
        self.copies, self.nbytes = [], 0
        return unsaved


def _save_one(spec: P.JobSpec, index: int, rep: int, items: tuple) -> str | None:
    """Save one kept call's outputs; what could not be saved (the folder is full), or None.
    Any other failure ends the worker: only a full folder is kgb's problem, and the judge
    then misses this re-check (the trusted side decides)."""
    if not all(t == P.PLAIN_TENSOR for t in type_names(items)):
        return None
    try:
        save_outputs(tuple(items), Path(spec.out_dir) / P.timed_file(index, rep))
    except Exception as exc:
        if not out_of_room(exc):
            raise
        return f"timed call {rep}: {str(exc)[:200]}"
    return None


def _timeable(case: P.CaseSpec, record: P.CaseRecord) -> bool:
    if not case.timeable:
        return False
    primary = record.calls[0] if record.calls else None
    return primary is not None and primary.status == P.CaseStatus.RETURNED and \
        bool(primary.outputs) and all(t == P.PLAIN_TENSOR for t in primary.output_types)


def _time_case(spec: P.JobSpec, index: int, case: P.CaseSpec, task_inputs: Any,
               entry: Callable, window: _Window, reset: L2Reset,
               later: _Later | None = None) -> P.TimedCase:
    import torch

    def inputs_for(rep: int) -> tuple:
        return call_inputs(task_inputs, case.dims, case.dtype, case.mode, case.layout,
                           spec.layout_inputs, spec.seed_input, spec.device,
                           timed_seed(case.seed, rep))

    def call(inputs: tuple) -> Any:
        if not spec.inplace:
            return entry(*inputs)
        # In place: each repetition's fresh inputs are its own state (nothing compounds, no
        # clone in the window); the aliases taken before the call are what it wrote.
        held = held_inplace(inputs, spec.inplace)
        entry(*inputs)
        return held

    # On a shared GPU the timing loop and the profiled call run under the GPU's timing lock,
    # every other job on it frozen (kgb/runner/gpu_share.py), held on into the next case.
    # The kept outputs are saved (or copied, `_Later`) before the profiled call, as on a GPU
    # of its own (a kernel that reuses its output buffer would overwrite them); a large save
    # that is not copied gives the lock back.
    window.take()
    loop = time_loop(call, inputs_for, reset=reset,
                     mark=lambda what: window.mark(f"{what} {case.id}"),
                     graph=spec.cuda_graph)
    prints = [outputs_fingerprint(as_items(out)) for out in loop.outputs]
    nbytes = output_bytes(loop.outputs[0]) if loop.outputs else 0
    kept = window.commit(case.id, prints, nbytes)
    size = nbytes * len(kept)
    unsaved = None
    held = size > SAVE_IN_WINDOW_BYTES and window.shared and later is not None and \
        later.hold(case.id, index, kept, loop.outputs, size)
    if not held:
        if size > SAVE_IN_WINDOW_BYTES:
            window.give()
        for rep in kept:
            unsaved = _save_one(spec, index, rep, as_items(loop.outputs[rep]))
            if unsaved is not None:
                break
    loop.outputs.clear()
    warm = inputs_for(0)
    window.take()
    profiled = profile_call(lambda: entry(*warm), torch.cuda.synchronize)
    return P.TimedCase(
        case=case.id, times_ms=tuple(round(t, 6) for t in loop.times_ms), warmup=loop.warmup,
        fingerprints=tuple(prints), kept=tuple(kept),
        profiler_ms=round(profiled.device_ms, 6) if profiled else None,
        kernels=tuple(sorted(profiled.kernels))[:64] if profiled else (),
        streams=profiled.streams if profiled else 0, unsaved=unsaved, graph=loop.graph,
        graph_error=loop.graph_error)
