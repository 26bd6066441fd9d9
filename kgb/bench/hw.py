"""The hardware's limits: peak FLOP/s per dtype and peak memory bandwidth, from a datasheet
table for common NVIDIA and AMD parts, or measured on this device by `kgb hw calibrate` (copy
bandwidth and matrix throughput, cached per device).

Two uses, two directions. Efficiency figures (fraction of peak, MFU) divide by the peak a
kernel could reach. The roofline floor (D307) rejects a time below max(FLOPs / peak,
bytes / bandwidth): there the *highest* credible peak is used — the datasheet's dense tensor-core
figure for a dtype (TF32 for float32, which an fp32 tl.dot may use), or a measurement when it is
higher — so an honest kernel is never called impossible."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict
from pathlib import Path

from kgb.protocol import Peaks

# Dense (non-sparse) peaks from the vendors' datasheets. float32: TF32 tensor-core peak;
# "float32_simt" is the CUDA-core figure, kept for reference.
_DATASHEET: tuple[tuple[str, float, dict[str, float]], ...] = (
    ("H200", 4800.0, {"float32": 494.7, "float32_simt": 67.0, "float16": 989.4,
                      "bfloat16": 989.4, "int8": 1978.9, "float8": 1978.9}),
    # H100 NVL: 3.9 TB/s; its compute figures are the SXM part's (higher: a floor never too high)
    ("H100 NVL", 3900.0, {"float32": 494.7, "float32_simt": 67.0, "float16": 989.4,
                          "bfloat16": 989.4, "int8": 1978.9, "float8": 1978.9}),
    ("H100 PCIe", 2000.0, {"float32": 378.0, "float32_simt": 51.0, "float16": 756.0,
                           "bfloat16": 756.0, "int8": 1513.0, "float8": 1513.0}),
    ("H100", 3350.0, {"float32": 494.7, "float32_simt": 67.0, "float16": 989.4,
                      "bfloat16": 989.4, "int8": 1978.9, "float8": 1978.9}),
    ("A100-SXM4-80GB", 2039.0, {"float32": 156.0, "float32_simt": 19.5, "float16": 312.0,
                                "bfloat16": 312.0, "int8": 624.0}),
    ("A100 80GB PCIe", 1935.0, {"float32": 156.0, "float32_simt": 19.5, "float16": 312.0,
                                "bfloat16": 312.0, "int8": 624.0}),
    ("A100", 1555.0, {"float32": 156.0, "float32_simt": 19.5, "float16": 312.0,
                      "bfloat16": 312.0, "int8": 624.0}),
    ("L40S", 864.0, {"float32": 183.0, "float32_simt": 91.6, "float16": 362.0,
                     "bfloat16": 362.0, "int8": 733.0, "float8": 733.0}),
    ("L40", 864.0, {"float32": 90.5, "float32_simt": 90.5, "float16": 181.0,
                    "bfloat16": 181.0, "int8": 362.0, "float8": 362.0}),
    ("L4", 300.0, {"float32": 60.0, "float32_simt": 30.3, "float16": 121.0, "bfloat16": 121.0,
                   "int8": 242.0, "float8": 242.0}),
    ("RTX 4090", 1008.0, {"float32": 82.6, "float32_simt": 82.6, "float16": 165.2,
                          "bfloat16": 165.2, "int8": 660.6}),
    ("MI300X", 5300.0, {"float32": 653.7, "float32_simt": 163.4, "float16": 1307.4,
                        "bfloat16": 1307.4, "int8": 2614.9, "float8": 2614.9}),
    ("MI250X", 3276.8, {"float32": 95.7, "float32_simt": 47.9, "float16": 383.0,
                        "bfloat16": 383.0, "int8": 383.0}),
)
INTEGER_DTYPES = ("int8", "int32", "int64")


def datasheet(device_name: str) -> Peaks | None:
    """The first table entry whose part name occurs in the device's name as a whole word: an
    "NVIDIA L40" is no L4 (whose 300 GB/s would put the floor nearly 3x too high)."""
    for part, bandwidth, tflops in _DATASHEET:
        if re.search(rf"(?<![a-z0-9]){re.escape(part.lower())}(?![a-z0-9])",
                     device_name.lower()):
            table = dict(tflops)
            for dtype in ("int32", "int64"):  # integer work: no tensor cores, take the SIMT rate
                table.setdefault(dtype, tflops["float32"])
            return Peaks(device_name, f"datasheet: {part}", bandwidth, table)
    return None


def cache_path(device_name: str) -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kgb" / "hw"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in device_name)
    return root / f"{safe}.json"


def calibrated(device_name: str) -> Peaks | None:
    try:
        data = json.loads(cache_path(device_name).read_text())
        return Peaks(device_name, str(data["source"]), float(data["bandwidth_gbps"]),
                     {str(k): float(v) for k, v in data["tflops"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save_calibration(peaks: Peaks) -> Path:
    path = cache_path(peaks.device)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(peaks), indent=1))
    return path


PLAUSIBLE = 1.5  # a measurement this far above the datasheet measured something else


def implausible(measured: Peaks, sheet: Peaks | None) -> str | None:
    """Why a calibration cannot be this part's, or None. Events recorded on another GPU's idle
    stream time nothing (session 23's judge did exactly that), and a peak that high would lower
    the roofline floor until D307 never fires."""
    if sheet is None:
        return None
    figures = [("bandwidth", measured.bandwidth_gbps, sheet.bandwidth_gbps, "GB/s")]
    figures += [(f"{k} TFLOP/s", v, sheet.tflops[k], "") for k, v in measured.tflops.items()
                if k in sheet.tflops and not k.startswith("int")]
    for what, got, peak, unit in figures:
        if got > PLAUSIBLE * peak:
            return (f"{what} measured {got:g}{unit and ' ' + unit} against the datasheet's "
                    f"{peak:g}: more than {PLAUSIBLE:g}x the part's peak")
    return None


def floor_peaks(device_name: str) -> Peaks | None:
    """The peaks for the roofline floor: per figure, the highest of datasheet and
    calibration (a lower floor never rejects an honest kernel); a calibration beyond what the
    part can do is not believed."""
    sheet, measured = datasheet(device_name), calibrated(device_name)
    if measured is not None and implausible(measured, sheet):
        measured = None
    if sheet is None or measured is None:
        return sheet or measured
    tflops = {k: max(sheet.tflops.get(k, 0.0), measured.tflops.get(k, 0.0))
              for k in set(sheet.tflops) | set(measured.tflops)}
    return Peaks(device_name, f"{sheet.source} / {measured.source}",
                 max(sheet.bandwidth_gbps, measured.bandwidth_gbps), tflops)


def efficiency_peaks(device_name: str) -> Peaks | None:
    """The peaks efficiency figures divide by: measured when calibrated, else datasheet."""
    return calibrated(device_name) or datasheet(device_name)
