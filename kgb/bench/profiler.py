"""The second clock: the device time of the kernels a call launched, summed over every stream,
and their names, as PyTorch's profiler (Kineto over CUPTI) reports them. Evidence from the
candidate's own process, so it is compared with what the candidate cannot touch (the supervisor's
window, the re-checked outputs) before anything rests on it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

NAME = "torch.profiler (Kineto/CUPTI)"


@dataclass(frozen=True)
class Profiled:
    device_ms: float  # summed over every kernel and stream the call used
    kernels: frozenset[str]
    streams: int


def profile_call(call: Callable[[], Any], synchronize: Callable[[], None]) -> Profiled | None:
    """Run `call` once under the profiler; None when the profiler cannot run here.

    torch.autograd.profiler.profile, not torch.profiler.profile: the latter builds the very
    same Kineto session (use_cpu False, the CUDA device, use_kineto), but its prepare_trace
    first asks `hasattr(torch, "_inductor")`, which imports torch._inductor in a process that
    has not (1.4 s on the dev machine with Triton; the first profiled call of a timed job
    cost 3.5-4.8 s on an H200, docs/performance.md run 23), and it adds trace metadata no one
    reads here."""
    try:
        from torch.autograd import DeviceType
        from torch.autograd.profiler import profile
    except ImportError:
        return None
    try:
        with profile(use_cpu=False, use_device="cuda", use_kineto=True) as prof:
            call()
            synchronize()
        events = prof.function_events
    except Exception:
        return None
    return summarize(events, DeviceType.CUDA)


def summarize(events: Any, cuda: Any) -> Profiled:
    """Device time, kernel names and streams of the profiler's events of device type `cuda`."""
    total_us = 0.0
    names: set[str] = set()
    streams: set[int] = set()
    for event in events:
        if getattr(event, "device_type", None) != cuda:
            continue
        name = str(getattr(event, "name", ""))
        if name.startswith(("Memcpy", "Memset", "[")):
            continue  # copies and fills are the harness's or allocation's, not kernels
        total_us += float(getattr(event, "self_device_time_total", 0.0) or
                          getattr(event, "device_time_total", 0.0) or 0.0)
        if "FillFunctor" not in name:  # fills (torch.zeros, the autotuner's L2 flush in
            names.add(name)            # triton.testing.do_bench) are not the candidate's kernels
        streams.add(int(getattr(event, "device_resource_id", 0) or 0))
    return Profiled(total_us / 1000.0, frozenset(names), len(streams))
