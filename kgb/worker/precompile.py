"""Autotuning at the speed of the host's cores: before Triton's autotuner benchmarks a key's
configs one by one, compile all of them at once on a thread pool the size of the sandbox's
CPU share, through Triton's own AsyncCompileMode (the compile path Inductor uses: the code
generator runs where the launch is, the compile — MLIR passes, ptxas in a subprocess — on the
pool). The autotuner then benchmarks as usual and finds each config compiled.

Nothing is decided here and nothing is skipped: a config whose pre-compile fails is dropped
from Triton's kernel cache, so the benchmark compiles it again and fails exactly as it does
without the pre-compile (inf for OutOfResources/PTXASError/CompileTimeAssertionFailure, the
error raised otherwise). The pre-compile's wall time is one interval of the compile clock
(nested compiles inside it counted once), so the per-case compile budget still sees it. Each
compile thread runs under the launch's body watch (`around`): Python the compile calls back
into (a `triton.constexpr_function`, a heuristic) is watched on the pool as it is on the
main thread — a dispatch mode is per thread, so without it a compile moved to the pool would
be a place to run PyTorch unseen.

GPU runs only: the CPU interpreter does not compile. Off with KGB_PRECOMPILE=0 (the
benchmark's switch, scripts/gpu/autotune_parallel.sh)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any

ENV = "KGB_PRECOMPILE"

# The context one compile runs under on the pool, given the kernel's name.
Around = Callable[[str], AbstractContextManager[Any]]


def workers(environ: dict[str, str] | None = None) -> int:
    """The sandbox's CPU share: kgb sets OMP_NUM_THREADS to its --limit cpus for the worker
    (runner/execute.py worker_env), bounded by the CPUs this process may run on."""
    env = os.environ if environ is None else environ
    try:
        share = int(env.get("OMP_NUM_THREADS", "1"))
    except ValueError:
        share = 1
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        usable = os.cpu_count() or 1
    return max(1, min(share, usable))


def enabled(environ: dict[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get(ENV, "1") != "0"


class _Pool(ThreadPoolExecutor):
    """A thread pool whose every task runs under `around(kernel)` in its own thread."""

    def __init__(self, size: int, around: Around, kernel: str) -> None:
        super().__init__(max_workers=size, thread_name_prefix="kgb-compile")
        self._around, self._kernel = around, kernel

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        around, kernel = self._around, self._kernel

        def watched() -> Any:
            with around(kernel):
                return fn(*args, **kwargs)

        return super().submit(watched)


def install(interval: Callable[[], AbstractContextManager[Any]], around: Around, size: int) -> bool:
    """Wrap Autotuner.prune_configs (called right before a key's configs are benchmarked, by
    Triton's autotuner and by subclasses such as FlagGems' LibTuner) to pre-compile the configs
    it returns. `interval()`: the compile clock's interval. False where this Triton has no
    AsyncCompileMode (the autotuner then compiles one config at a time, as before)."""
    try:
        from triton.runtime import _async_compile
        from triton.runtime.autotuner import Autotuner
    except ImportError:  # pragma: no cover - an older Triton
        return False
    mode = getattr(_async_compile, "AsyncCompileMode", None)
    original = getattr(Autotuner, "prune_configs", None)
    original = getattr(original, "__kgb_unwrapped__", original)  # installed once, not nested
    if mode is None or original is None:
        return False

    def prune_configs(self, kwargs, *rest, **named):
        configs = original(self, kwargs, *rest, **named)
        nargs = getattr(self, "nargs", None)
        if isinstance(configs, list) and len(configs) > 1 and isinstance(nargs, dict):
            # run() gets the launch's grid and warmup flag among its kwargs (`kernel[grid]`)
            meta = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
            with interval():
                _compile_all(self, configs, tuple(nargs.values()), meta, mode,
                             _async_compile, _Pool(size, around, _name(self)))
        return configs

    prune_configs.__kgb_unwrapped__ = original  # type: ignore[attr-defined]
    Autotuner.prune_configs = prune_configs
    return True


def _compile_all(tuner: Any, configs: list, args: tuple, kwargs: dict, mode: Any,
                 module: Any, pool: _Pool) -> None:
    """Every config's warm-up (no launch) under AsyncCompileMode: each compile is submitted to
    the pool, and the mode's exit waits for all of them, keeping those that compiled."""
    try:
        with mode(pool, ignore_errors=True):
            for config in configs:
                extra = config.all_kwargs()
                if kwargs.keys() & config.kwargs.keys():
                    continue  # the benchmark raises Triton's own "Conflicting meta-parameters"
                with contextlib.suppress(Exception):  # the benchmark meets it again, as Triton
                    tuner.fn.warmup(*args, grid=(1,), **kwargs, **extra)
    finally:
        pool.shutdown(wait=True)
        with contextlib.suppress(Exception):
            module.active_mode.set(None)  # Triton 3.6 leaves it set if its exit raises


def _name(tuner: Any) -> str:
    return str(getattr(getattr(tuner, "base_fn", None), "__name__", "?"))


@contextlib.contextmanager
def unwatched(_: str) -> Iterator[None]:
    """No watch: what the pool runs is not traced (tests; a run without a trace)."""
    yield
