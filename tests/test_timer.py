"""The timing loop's logic (kgb.bench.timer) on a simulated device: CUDA events read a fake
device clock that the "kernel" advances, and a fake CUDA graph records the work captured in it
and runs it again on replay. The real loop runs on the GPU (scripts/gpu/timing_check.py,
docs/timing.md); here what it does in which order is pinned down on any machine."""

from __future__ import annotations

import contextlib

import pytest
import torch

from kgb.bench import timer

KERNEL_MS = 1.0


class Device:
    def __init__(self) -> None:
        self.now = 0.0
        self.capturing: FakeGraph | None = None
        self.log: list[str] = []


class FakeGraph:
    def __init__(self) -> None:
        self.work: list = []

    def replay(self) -> None:
        for step in self.work:
            step()


@pytest.fixture
def device(monkeypatch):
    dev = Device()

    class Event:
        def __init__(self, enable_timing: bool = True) -> None:
            self.t = 0.0

        def record(self) -> None:
            self.t = dev.now

        def elapsed_time(self, other: Event) -> float:
            return other.t - self.t

    @contextlib.contextmanager
    def graph(g: FakeGraph, pool=None):
        dev.log.append("capture")
        dev.capturing = g
        try:
            yield
        finally:
            dev.capturing = None

    monkeypatch.setattr(timer, "_Event", Event)
    monkeypatch.setattr(timer, "_synchronize", lambda: None)
    monkeypatch.setattr(timer, "_sleep", None)  # no spin: the fake clock has no launch gap
    monkeypatch.setattr(torch.cuda, "CUDAGraph", FakeGraph, raising=False)
    monkeypatch.setattr(torch.cuda, "graph", graph, raising=False)
    monkeypatch.setattr(torch.cuda, "graph_pool_handle", lambda: object(), raising=False)
    return dev


def doubling_kernel(dev: Device, capturable: bool = True):
    def call(inputs: tuple) -> torch.Tensor:
        (x,) = inputs
        out = torch.empty_like(x)

        def work() -> None:
            out.copy_(x * 2)
            dev.now += KERNEL_MS

        if dev.capturing is not None:
            if not capturable:  # what torch raises for a host sync inside a capture
                raise RuntimeError("operation not permitted when stream is capturing")
            dev.capturing.work.append(work)
        else:
            work()
        return out
    return call


def fresh_inputs(rep: int) -> tuple:
    return (torch.full((4,), float(rep)),)


def test_graph_mode_captures_before_the_window_and_replays_each_call_fresh(device):
    resets = []
    loop = timer.time_loop(doubling_kernel(device), fresh_inputs, reset=lambda: resets.append(1),
                           min_reps=3, max_reps=6, warmup=2,
                           mark=lambda what: device.log.append(what), graph=True)
    assert loop.graph and loop.graph_error is None
    assert len(loop.times_ms) == 6 and all(t == KERNEL_MS for t in loop.times_ms)
    # every capture happens before the timed window opens; nothing is captured inside it
    assert device.log == ["capture"] * 6 + ["start", "end"]
    assert len(resets) == 6  # the L2 reset before every replay, as before every plain call
    # each kept output is its own replay's answer for its own fresh inputs
    for rep, out in enumerate(loop.outputs, start=1):
        assert torch.equal(out, torch.full((4,), 2.0 * rep))
    assert loop.keepalive is not None  # the graphs own the outputs' memory


def test_a_call_that_cannot_be_captured_is_timed_plainly_and_says_why(device):
    loop = timer.time_loop(doubling_kernel(device, capturable=False), fresh_inputs,
                           min_reps=3, max_reps=5, warmup=1,
                           mark=lambda what: device.log.append(what), graph=True)
    assert not loop.graph and "not permitted when stream is capturing" in loop.graph_error
    assert len(loop.times_ms) == 5 and device.log[-2:] == ["start", "end"]
    for rep, out in enumerate(loop.outputs, start=1):
        assert torch.equal(out, torch.full((4,), 2.0 * rep))


def test_plain_mode_keeps_every_output_and_times_each_call(device):
    loop = timer.time_loop(doubling_kernel(device), fresh_inputs, min_reps=4, max_reps=4,
                           warmup=1, budget_ms=0.0)
    assert not loop.graph and loop.graph_error is None and device.log == []
    assert loop.times_ms == [KERNEL_MS] * 4 and len(loop.outputs) == 4


def test_work_done_while_capturing_does_not_reach_the_timed_outputs(device):
    """A kernel that has read this file: it computes the answer while the graph is being
    captured (outside the graph) and records nothing, or records only a copy of an answer
    stashed then, so its replays cost nothing. The graph is captured on decoy values that
    are then overwritten by the timed call's own inputs, and the outputs are poisoned: the
    first leaves NaN, the second the decoy's answer — both wrong where the judge re-checks."""
    def eager_at_capture(inputs: tuple) -> torch.Tensor:
        (x,) = inputs
        return x * 2  # computed now, nothing recorded in the graph

    loop = timer.time_loop(eager_at_capture, fresh_inputs, min_reps=2, max_reps=3, warmup=1,
                           graph=True)
    assert loop.graph and all(torch.isnan(out).all() for out in loop.outputs)

    def replay_a_stash(inputs: tuple) -> torch.Tensor:
        (x,) = inputs
        stash = x * 2
        out = torch.empty_like(x)
        if device.capturing is not None:
            device.capturing.work.append(lambda: out.copy_(stash))
        else:
            out.copy_(stash)
        return out

    loop = timer.time_loop(replay_a_stash, fresh_inputs, min_reps=2, max_reps=3, warmup=1,
                           graph=True)
    for rep, out in enumerate(loop.outputs, start=1):
        assert not torch.equal(out, torch.full((4,), 2.0 * rep))  # the decoy's answer


def test_calls_whose_scalar_arguments_change_are_timed_plainly(device):
    """A graph bakes in every non-tensor argument: a task whose calls differ in one (a seed,
    say) cannot be replayed on another call's values, so it is timed plainly, with the reason."""
    def inputs_with_seed(rep: int) -> tuple:
        return (torch.full((4,), float(rep)), rep)

    def call(inputs: tuple) -> torch.Tensor:
        return doubling_kernel(device)((inputs[0],))

    loop = timer.time_loop(call, inputs_with_seed, min_reps=2, max_reps=3, warmup=1, graph=True)
    assert not loop.graph and "non-tensor arguments" in loop.graph_error


@pytest.mark.parametrize("graph", [False, True])
def test_the_collector_is_off_inside_the_window_and_restored_after(device, graph):
    """A full collection stops a torch process ~100 ms: inside the supervisor's marks it
    stretched an honest GELU's window past D304's slack (run 26). Every timed call and both
    marks see the collector off; after the loop it is as it was."""
    import gc

    seen: list[tuple[str, bool]] = []
    kernel = doubling_kernel(device)

    def call(inputs: tuple) -> torch.Tensor:
        seen.append(("call", gc.isenabled()))
        return kernel(inputs)

    assert gc.isenabled()
    loop = timer.time_loop(call, fresh_inputs, min_reps=3, max_reps=3, warmup=1,
                           mark=lambda what: seen.append((what, gc.isenabled())), graph=graph)
    assert gc.isenabled()
    start = seen.index(("start", False))
    assert seen[-1] == ("end", False)
    timed = [on for what, on in seen[start:] if what == "call"]
    assert len(loop.times_ms) == 3 and not any(timed) and len(timed) == (0 if graph else 3)
    gc.disable()  # a collector the caller had off stays off
    try:
        timer.time_loop(call, fresh_inputs, min_reps=2, max_reps=2, warmup=1, graph=graph)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_no_collection_runs_inside_the_window_even_when_the_call_makes_cyclic_garbage(device):
    """What the pause is for: a wrapper that leaves cycles behind (as the GPU corpus's honest
    passed_gelu_launch_history_makes_cyclic_garbage.py) sets the collector off every call;
    between the marks nothing collects, while the warm-up calls before them do."""
    import gc

    kernel, phase, collections = doubling_kernel(device), ["warm-up"], []

    class Record:
        def __init__(self, before: object) -> None:
            self.me, self.before = self, before

    def call(inputs: tuple) -> torch.Tensor:
        chain = None
        for _ in range(3000):
            chain = Record(chain)
        return kernel(inputs)

    def seen(stage: str, info: dict) -> None:
        if stage == "start":
            collections.append(phase[0])

    def mark(what: str) -> None:
        phase[0] = "window" if what == "start" else "after"

    gc.callbacks.append(seen)
    try:
        timer.time_loop(call, fresh_inputs, min_reps=20, max_reps=20, warmup=3, mark=mark)
    finally:
        gc.callbacks.remove(seen)
    assert "warm-up" in collections  # the calls do set the collector off
    assert "window" not in collections
