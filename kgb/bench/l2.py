"""What each timed call must not inherit from the one before: a warm L2 cache, and L2 lines a
kernel asked to keep (persisting L2, threat 28). Both are undone outside the timed window."""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

_CUDA_LIMIT_PERSISTING_L2 = 0x06  # cudaLimitPersistingL2CacheSize


class L2Reset:
    """Before every timed call: reset persisting L2 lines to normal with
    cudaCtxResetPersistingL2Cache, then zero a buffer twice the L2 size. In that order: a reset
    demotes persisting lines but leaves them resident, and a flush cannot evict lines that are
    still persisting — a window set by the candidate over the addresses where the next inputs
    will be written would otherwise keep them in L2 for the timed call (threat 28)."""

    def __init__(self, device: Any) -> None:
        import torch

        props = torch.cuda.get_device_properties(device)
        size = max(int(getattr(props, "L2_cache_size", 0) or 0), 50 << 20) * 2
        self.bytes = size
        self.buffer = torch.empty(size, dtype=torch.uint8, device=device)
        self._cudart = _cudart()
        self.persisting_reset = False
        if self._cudart is not None:  # no carve-out for persisting lines to begin with
            self._cudart.cudaDeviceSetLimit(_CUDA_LIMIT_PERSISTING_L2, ctypes.c_size_t(0))

    def __call__(self) -> None:
        if self._cudart is not None:
            self.persisting_reset = self._cudart.cudaCtxResetPersistingL2Cache() == 0
        self.buffer.zero_()


def _cudart() -> Any:
    """The CUDA runtime torch loaded (the same context), or None."""
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so", ctypes.util.find_library(
            "cudart")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
            lib.cudaCtxResetPersistingL2Cache  # noqa: B018 - the symbol must exist
            return lib
        except (OSError, AttributeError):
            continue
    return None
