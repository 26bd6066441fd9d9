"""Evidence the worker gathers while the candidate runs (layer 2). It is only evidence: the
candidate shares this process and could forge it, so every rule that reads it is backed by
something the candidate cannot touch (outputs judged on the trusted side, design rule 0)."""

from __future__ import annotations

import os
from typing import Any


class LaunchCounter:
    """Counts launches of @triton.jit kernels whose code lives in the candidate's file.

    Every launch — `kernel[grid](...)`, through autotune/heuristics wrappers, compiled or
    interpreted — ends in JITFunction.run / InterpretedFunction.run; warm-up calls are not
    launches."""

    def __init__(self, kernel_path: str) -> None:
        self.kernel_path = os.path.realpath(kernel_path)
        self.count = 0
        self.ghost = False

    def reset(self, ghost: bool = False) -> None:
        """Start counting a new call; `ghost`: own-file launches do nothing (ghost replay)."""
        self.count = 0
        self.ghost = ghost

    def install(self) -> None:
        from triton.runtime.jit import JITFunction

        classes = [JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction
            classes.append(InterpretedFunction)
        except ImportError:  # pragma: no cover - older triton
            pass
        for cls in classes:
            self._wrap(cls)

    def _wrap(self, cls: Any) -> None:
        original = cls.run
        counter = self

        def run(self, *args, grid, warmup, **kwargs):
            code = getattr(getattr(self, "fn", None), "__code__", None)
            if not warmup and code is not None and \
                    os.path.realpath(code.co_filename) == counter.kernel_path:
                counter.count += 1
                if counter.ghost:
                    return None
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)

        cls.run = run
