"""Which NVIDIA GPU a job's `cuda:N` means on this host, read from the driver's /proc entries
(no CUDA initialisation on the trusted side).

`cuda:N` is the N-th GPU in PCI bus order (what `nvidia-smi` lists), restricted to the host's
own CUDA_VISIBLE_DEVICES when that is set; set CUDA_DEVICE_ORDER=PCI_BUS_ID on the trusted side
for torch to agree. Backends expose only that GPU and name it by UUID in CUDA_VISIBLE_DEVICES,
so inside the sandbox it is always device 0 whatever the enumeration order.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

DRIVER_GPUS = "/proc/driver/nvidia/gpus"
# Nodes every CUDA process needs besides its GPU's own /dev/nvidiaN.
CONTROL_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                 "/dev/nvidia-modeset")


@dataclass(frozen=True)
class Gpu:
    index: int  # position in PCI bus order
    bus_id: str
    uuid: str | None
    minor: int | None  # /dev/nvidia<minor>

    @property
    def node(self) -> str | None:
        return f"/dev/nvidia{self.minor}" if self.minor is not None else None


def list_gpus() -> list[Gpu]:
    gpus = []
    for i, folder in enumerate(sorted(glob.glob(os.path.join(DRIVER_GPUS, "*")))):
        info: dict[str, str] = {}
        try:
            with open(os.path.join(folder, "information")) as f:
                for line in f:
                    key, _, value = line.partition(":")
                    info[key.strip()] = value.strip()
        except OSError:
            pass
        minor = info.get("Device Minor")
        gpus.append(Gpu(i, os.path.basename(folder), info.get("GPU UUID") or None,
                        int(minor) if minor and minor.isdigit() else None))
    return gpus


def resolve(device: str) -> Gpu | None:
    """The GPU behind "cuda:N", or None when the driver does not say (then backends fall back
    to exposing every node and selecting by index)."""
    if not device.startswith("cuda"):
        return None
    index = int(device.split(":")[1]) if ":" in device else 0
    gpus = list_gpus()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        chosen = []
        for item in (v.strip() for v in visible.split(",")):
            match = [g for g in gpus if (item.isdigit() and g.index == int(item))
                     or (g.uuid and item and g.uuid.startswith(item))]
            chosen += match[:1]
        gpus = chosen
    return gpus[index] if 0 <= index < len(gpus) else None


def all_nodes() -> list[str]:
    return sorted(p for p in glob.glob("/dev/nvidia*") if p[len("/dev/nvidia"):].isdigit())


def driver_library_dirs() -> list[str]:
    """Folders holding the driver's user-space libraries (libcuda.so.1 and its companions):
    what NVIDIA's container runtime would inject, found in LD_LIBRARY_PATH and ld.so's cache.
    A container image without them cannot open the GPU."""
    found: list[str] = []
    candidates = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    try:
        import subprocess

        cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=10)
        candidates += [os.path.dirname(line.rsplit("=>", 1)[1].strip())
                       for line in cache.stdout.splitlines() if "libcuda.so" in line and "=>"
                       in line]
    except (OSError, subprocess.SubprocessError):
        pass
    for folder in candidates:
        real = os.path.realpath(folder)
        if real not in found and glob.glob(os.path.join(real, "libcuda.so*")):
            found.append(real)
    return found
