"""Instrumentation the candidate worker installs before importing the candidate."""

from __future__ import annotations

import os


class LaunchCounter:
    """Counts launches of @triton.jit kernels whose code lives in the candidate's file.

    Every launch — `kernel[grid](...)`, through autotune/heuristics wrappers, compiled or
    interpreted — ends in JITFunction.run / InterpretedFunction.run; warm-up calls are not
    launches."""

    def __init__(self, kernel_path: str) -> None:
        self.kernel_path = os.path.realpath(kernel_path)
        self.count = 0

    def reset(self) -> None:
        self.count = 0

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

    def _wrap(self, cls: type) -> None:
        original = cls.run
        counter = self

        def run(self, *args, grid, warmup, **kwargs):  # type: ignore[no-untyped-def]
            code = getattr(getattr(self, "fn", None), "__code__", None)
            if not warmup and code is not None and \
                    os.path.realpath(code.co_filename) == counter.kernel_path:
                counter.count += 1
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)

        cls.run = run


def keep_first_autotune_config() -> bool:
    """On the CPU interpreter, multi-config autotune cannot benchmark ('0 active drivers').
    Make every autotuner keep the first config its pruning leaves, so honest autotuned kernels
    run; the report says so."""
    from triton.runtime.autotuner import Autotuner

    original = Autotuner.prune_configs

    def prune_configs(self, kwargs, *rest):  # type: ignore[no-untyped-def]
        return original(self, kwargs, *rest)[:1]

    Autotuner.prune_configs = prune_configs
    return True
