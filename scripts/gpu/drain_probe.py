"""How soon NVML can say a GPU has drained (kgb/runner/gpu_share.py `gpu_idle`): every grant of
the timing lock waits for it, ~0.2 s a grant on an H200 (run 24: 15-25 s of a batch's run).

After a busy spell of known length ends at time T (a spin kernel, then a host-side stamp),
this prints, per trial: when `nvmlDeviceGetUtilizationRates` first reads 0 % after T (what
kgb waits for today), and when `nvmlDeviceGetSamples(GPU_UTILIZATION)` first returns a 0 %
sample stamped after T (a sample whose interval ends after T: a candidate for a drain that is
both sound against a stale reading and shorter), with the samples' period. A benchmark that
prints figures, not a test. Usage on the lent GPU: python scripts/gpu/drain_probe.py"""

from __future__ import annotations

import itertools
import statistics
import time

import pynvml
import torch

POLL_S = 0.002


def first_zero_rate(handle, since: float, bound_s: float = 3.0) -> float | None:
    while time.time() - since < bound_s:
        if pynvml.nvmlDeviceGetUtilizationRates(handle).gpu == 0:
            return time.time() - since
        time.sleep(POLL_S)
    return None


def first_zero_sample(handle, since: float, bound_s: float = 3.0) -> tuple[float | None, list]:
    seen: list = []
    while time.time() - since < bound_s:
        try:
            _, samples = pynvml.nvmlDeviceGetSamples(
                handle, pynvml.NVML_GPU_UTILIZATION_SAMPLES, int((since - 1.0) * 1e6))
        except pynvml.NVMLError as exc:
            return None, [str(exc)]
        seen = [(s.timeStamp / 1e6, s.sampleValue.uiVal) for s in samples]
        after = [(t, v) for t, v in seen if t > since]
        zero = next((t for t, v in after if v == 0), None)
        if zero is not None:
            return time.time() - since, seen
        time.sleep(POLL_S)
    return None, seen


def main() -> None:
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    cycles_per_ms = 1.4e6  # ~1.4-2 GHz: a spin of ~100-150 ms
    rows = []
    for trial in range(8):
        torch.cuda._sleep(int(100 * cycles_per_ms))
        torch.cuda.synchronize()
        ended = time.time()
        rate_s = first_zero_rate(handle, ended)
        torch.cuda._sleep(int(100 * cycles_per_ms))
        torch.cuda.synchronize()
        ended = time.time()
        sample_s, seen = first_zero_sample(handle, ended)
        stamps = [t for t, _ in seen]
        period = statistics.median([b - a for a, b in itertools.pairwise(stamps)]) \
            if len(stamps) > 2 else None
        rows.append((rate_s, sample_s, period))
        print(f"trial {trial}: utilization 0 % after {rate_s}, a 0 % sample after T after "
              f"{sample_s}, sample period {period}")
    # During a spell: a spin of ~300 ms launched and not waited for; whether the rate (and
    # the newest sample) read 0 % while the stream still runs it (a stale reading the rate
    # drain would take for idle).
    for trial in range(4):
        time.sleep(0.5 + 0.13 * trial)  # idle first, at a different phase of the sampling
        torch.cuda._sleep(int(300 * cycles_per_ms))
        launched = time.time()
        zero_rate = zero_sample = None
        while not torch.cuda.current_stream().query():
            busy_for = time.time() - launched
            if zero_rate is None and pynvml.nvmlDeviceGetUtilizationRates(handle).gpu == 0:
                zero_rate = busy_for
            try:
                _, samples = pynvml.nvmlDeviceGetSamples(
                    handle, pynvml.NVML_GPU_UTILIZATION_SAMPLES, int((launched - 1.0) * 1e6))
                if zero_sample is None and any(s.timeStamp / 1e6 > launched and
                                               s.sampleValue.uiVal == 0 for s in samples):
                    zero_sample = busy_for
            except pynvml.NVMLError:
                pass
            time.sleep(POLL_S)
        print(f"during {trial}: spin ran {time.time() - launched:.3f} s; rate read 0 % "
              f"while it ran at {zero_rate}; a 0 % sample stamped after the launch at "
              f"{zero_sample}")
    ok = [r for r in rows if r[0] is not None and r[1] is not None]
    if ok:
        print(f"median: rates {statistics.median(r[0] for r in ok):.3f} s, samples "
              f"{statistics.median(r[1] for r in ok):.3f} s")


if __name__ == "__main__":
    main()
