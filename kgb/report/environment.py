"""What a reader needs to trust or reproduce a report: versions, device, isolation."""

from __future__ import annotations

import platform
import sys

import kgb


def collect(device: str, sandbox_description: dict) -> dict:
    import torch
    import triton

    env = {
        "kgb": kgb.__version__, "python": platform.python_version(), "torch": torch.__version__,
        "triton": triton.__version__, "platform": platform.platform(), "device": device,
        "sandbox": sandbox_description,
    }
    if device == "cpu":
        env.update(device_name="CPU (Triton interpreter)", interpreter=True,
                   timings_meaningful=False)
    else:
        index = int(device.split(":")[1])
        props = torch.cuda.get_device_properties(index)
        env.update(device_name=props.name, interpreter=False, timings_meaningful=True,
                   cuda=torch.version.cuda, sm_count=props.multi_processor_count,
                   memory_bytes=props.total_memory, driver=_driver_version())
    env["argv"] = sys.argv[1:]
    return env


def _driver_version() -> str | None:
    try:
        import subprocess

        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, IndexError, subprocess.SubprocessError):
        return None
