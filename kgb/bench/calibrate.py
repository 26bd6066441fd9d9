"""`kgb hw calibrate`: what this GPU really does — device-to-device copy bandwidth and dense
matrix throughput per dtype — measured with CUDA events (best of several runs, as roofline
tools report), cached per device (kgb.bench.hw) and then used for efficiency figures; the
roofline floor takes the higher of datasheet and measurement, so a calibration never makes an
honest kernel look impossible."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from kgb.protocol import Peaks

COPY_BYTES = 1 << 30  # 1 GiB each way: far beyond any L2
MATMUL_N = 8192
MATMUL_DTYPES = ("float16", "bfloat16", "float32")


def _best_ms(fn: Callable[[], Any], reps: int = 10, warmup: int = 3) -> float:
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end))
    return best


def copy_bandwidth_gbps(device: Any) -> float:
    """Bytes read plus bytes written per second by a plain device-to-device copy."""
    import torch

    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    ms = _best_ms(lambda: dst.copy_(src))
    return 2 * COPY_BYTES / (ms * 1e-3) / 1e9


def matmul_tflops(device: Any, dtype: str) -> float:
    """Dense GEMM throughput (2·N³ per product) for one dtype; float32 with TF32 allowed, the
    rate an fp32 tl.dot may reach."""
    import torch

    torch_dtype = getattr(torch, dtype)
    a = torch.randn(MATMUL_N, MATMUL_N, device=device).to(torch_dtype)
    b = torch.randn(MATMUL_N, MATMUL_N, device=device).to(torch_dtype)
    allowed = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        ms = _best_ms(lambda: a @ b)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = allowed
    return 2 * MATMUL_N ** 3 / (ms * 1e-3) / 1e12


def calibrate(device: str = "cuda:0") -> Peaks:
    import torch

    # The events and synchronize follow the current device, not the tensors': measured from
    # cuda:0 while the work runs on cuda:1, every figure would be absurdly high.
    with torch.cuda.device(torch.device(device)):
        name = torch.cuda.get_device_name(device)
        tflops = {dtype: round(matmul_tflops(device, dtype), 1) for dtype in MATMUL_DTYPES}
        torch.cuda.empty_cache()
        for dtype in ("int32", "int64"):
            tflops[dtype] = tflops["float32"]
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
        return Peaks(name, f"calibrated {stamp} (torch {torch.__version__})",
                     round(copy_bandwidth_gbps(device), 1), tflops)
