"""`kgb hw`: what this machine's GPU is (name, memory, SMs, clocks, driver) and the peaks kgb
uses for it — datasheet, calibration, and which of them the roofline floor and the efficiency
figures take."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kgb.bench import hw


def describe(index: int = 0) -> dict[str, Any]:
    """Everything `kgb hw` prints, as a JSON-able dict; on a machine without a CUDA device,
    says so (kgb then runs kernels in Triton's CPU interpreter)."""
    import torch

    info: dict[str, Any] = {"torch": torch.__version__, "cuda": torch.version.cuda}
    try:
        import triton

        info["triton"] = triton.__version__
    except ImportError:
        info["triton"] = None
    if not torch.cuda.is_available():
        info["device"] = None
        info["note"] = ("no CUDA device visible: kgb runs kernels in Triton's CPU interpreter, "
                        "where no timing is meaningful")
        return info
    props = torch.cuda.get_device_properties(index)
    name = torch.cuda.get_device_name(index)
    info.update(device=name, index=index, memory_gib=round(props.total_memory / 2**30, 1),
                sms=props.multi_processor_count, compute_capability=f"{props.major}.{props.minor}",
                l2_mib=round(getattr(props, "L2_cache_size", 0) / 2**20, 1))
    info.update(_nvml(index))
    sheet, measured = hw.datasheet(name), hw.calibrated(name)
    floor, efficiency = hw.floor_peaks(name), hw.efficiency_peaks(name)
    info["peaks"] = {
        "datasheet": asdict(sheet) if sheet else None,
        "calibrated": asdict(measured) if measured else None,
        "calibration_file": str(hw.cache_path(name)),
        "floor": asdict(floor) if floor else None,
        "efficiency": asdict(efficiency) if efficiency else None,
    }
    return info


def _nvml(index: int) -> dict[str, Any]:
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        return {
            "driver": _text(pynvml.nvmlSystemGetDriverVersion()),
            "sm_clock_max_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM),
            "mem_clock_max_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM),
            "sm_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
            "power_limit_w": pynvml.nvmlDeviceGetPowerManagementLimit(handle) / 1000.0,
            "temperature_c": pynvml.nvmlDeviceGetTemperature(handle,
                                                             pynvml.NVML_TEMPERATURE_GPU),
        }
    except Exception as exc:  # no NVML, no permission: the rest still stands
        return {"nvml_error": f"{type(exc).__name__}: {exc}"}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def render(info: dict[str, Any]) -> str:
    """Plain lines for the terminal."""
    lines = [f"torch {info['torch']} (CUDA {info['cuda']}), triton {info['triton']}"]
    if info.get("device") is None:
        return "\n".join(lines + [info["note"]])
    lines.append(f"{info['device']} (GPU {info['index']}): {info['memory_gib']} GiB, "
                 f"{info['sms']} SMs, sm_{info['compute_capability'].replace('.', '')}, "
                 f"L2 {info['l2_mib']} MiB")
    if "nvml_error" in info:
        lines.append(f"NVML: {info['nvml_error']}")
    else:
        lines.append(f"driver {info['driver']}, SM clock {info['sm_clock_mhz']} MHz (max "
                     f"{info['sm_clock_max_mhz']}), memory clock max {info['mem_clock_max_mhz']}"
                     f" MHz, power limit {info['power_limit_w']:.0f} W, "
                     f"{info['temperature_c']} °C")
    peaks = info["peaks"]
    for label in ("datasheet", "calibrated"):
        p = peaks[label]
        if p is None:
            hint = " (run `kgb hw calibrate`)" if label == "calibrated" else \
                " (not in kgb's table: no roofline floor until calibrated)"
            lines.append(f"{label}: none{hint}")
            continue
        rates = ", ".join(f"{k} {v:g}" for k, v in p["tflops"].items()
                          if k in ("float32", "float16", "bfloat16", "int8", "float8"))
        lines.append(f"{label}: {p['bandwidth_gbps']:g} GB/s, TFLOP/s {rates} [{p['source']}]")
    lines.append(f"roofline floor uses: {_source(peaks['floor'])}; efficiency figures use: "
                 f"{_source(peaks['efficiency'])}")
    return "\n".join(lines)


def _source(peaks: dict[str, Any] | None) -> str:
    return peaks["source"] if peaks else "nothing (unknown device)"
