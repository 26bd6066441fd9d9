"""The GPU's state around a job, read by the trusted host through NVML (nvidia-ml-py): SM and
memory clocks, temperature and power before and after, and the clock-throttle reasons active
after. A job whose GPU throttled for power or heat is flagged and its speedups are not counted
(idle and boost-related reasons are not throttling); so is one that shared its GPU with another
process (kgb.bench.neighbours)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kgb.bench.neighbours import Neighbours
from kgb.protocol import Conditions

# nvmlClocksThrottleReason* bits that mean the clocks were held down
_THROTTLING = {0x2: "applications-clocks", 0x4: "sw-power-cap", 0x8: "hw-slowdown",
               0x20: "sw-thermal", 0x40: "hw-thermal", 0x80: "hw-power-brake"}


def snapshot(index: int) -> dict[str, Any] | str:
    """NVML readings of GPU `index` (PCI bus order, as kgb numbers GPUs), or why not."""
    try:
        import pynvml
    except ImportError:
        return "nvidia-ml-py is not installed"
    try:
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        return {
            "sm": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
            "mem": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM),
            "temp": pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU),
            "power": pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0,
            "reasons": pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(handle),
        }
    except Exception as exc:  # NVML missing, no permission, a GPU that went away
        return f"NVML failed: {type(exc).__name__}: {exc}"


def conditions(before: dict[str, Any] | str, after: dict[str, Any] | str,
               neighbours: Neighbours | None = None) -> Conditions:
    near = neighbours or Neighbours()
    return replace(_clocks(before, after), neighbours=near.seen, unattributed=near.unattributed,
                   neighbours_error=near.error)


def _clocks(before: dict[str, Any] | str, after: dict[str, Any] | str) -> Conditions:
    if isinstance(before, str) or isinstance(after, str):
        return Conditions(error=before if isinstance(before, str) else str(after))
    reasons = tuple(name for bit, name in _THROTTLING.items() if after["reasons"] & bit)
    return Conditions(
        sm_clock_mhz=(int(before["sm"]), int(after["sm"])),
        mem_clock_mhz=(int(before["mem"]), int(after["mem"])),
        temperature_c=(int(before["temp"]), int(after["temp"])),
        power_w=(round(float(before["power"]), 1), round(float(after["power"]), 1)),
        throttle_reasons=reasons, throttled=bool(reasons))
