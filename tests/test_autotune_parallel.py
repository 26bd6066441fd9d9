"""The autotune pre-compile (kgb/worker/precompile.py) on Triton's real Autotuner and its real
AsyncCompileMode, with a fake compile step (the CPU has no compiler): configs compile at once on
a pool of the sandbox's CPU share, each (key, config) once, a key seen again tunes nothing,
failures end as Triton ends them, the compile clock counts the interval once, and a compile
moved to the pool is still watched."""

from __future__ import annotations

import inspect
import os
import threading
import time
from collections import Counter
from typing import Any

# Triton reads TRITON_INTERPRET when it is imported: this module is collected before the
# in-process suite-quality tests (kgb.suite.quality sets it at its own import, too late once
# Triton is loaded), whose kernels then ran uninterpreted (test_inplace failed after it).
os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
import torch  # noqa: E402
from triton import Config
from triton.runtime import _async_compile
from triton.runtime.autotuner import Autotuner
from triton.runtime.errors import PTXASError
from triton.runtime.jit import KernelInterface

from kgb.worker import precompile
from kgb.worker.compile_clock import CompileClock
from kgb.worker.evidence import DispatchTrace, LaunchCounter

COMPILE_S = 0.15


def _body(x, n, BLOCK):  # the "kernel's" Python function (Autotuner walks .fn to a function)
    pass


class FakeKernel(KernelInterface):
    """A JITFunction stand-in: compiles per (n, BLOCK) into a cache, and under an active
    AsyncCompileMode submits the compile as JITFunction._do_compile does."""

    def __init__(self, fail: dict[int, BaseException] | None = None,
                 on_compile: Any = None) -> None:
        self.fn = _body
        self.cache: dict[tuple, Any] = {}
        self.compiles: Counter = Counter()
        self.launches: list[tuple] = []
        self.fail = fail or {}
        self.on_compile = on_compile
        self.active = self.peak = 0
        self.threads: set[str] = set()
        self._lock = threading.Lock()

    def _compile(self, key: tuple) -> tuple:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.compiles[key] += 1
            self.threads.add(threading.current_thread().name)
        try:
            time.sleep(COMPILE_S)  # ptxas: a subprocess, the GIL released
            if self.on_compile is not None:
                self.on_compile()
            if key[1] in self.fail:
                raise self.fail[key[1]]
            return ("binary", key)
        finally:
            with self._lock:
                self.active -= 1

    def run(self, *args, grid, warmup, **kwargs):
        key = (args[1], kwargs["BLOCK"])
        kernel = self.cache.get(key)
        if kernel is None:
            mode = _async_compile.active_mode.get()
            if mode is not None:
                def finalize(k, key=key):
                    self.cache[key] = k
                extra = ([lambda _f: None] if len(inspect.signature(mode.submit).parameters) > 3
                         else [])  # Triton 3.9's submit takes a cleanup too
                return mode.submit(key, lambda: self._compile(key), finalize, *extra)
            kernel = self.cache[key] = self._compile(key)
        if not warmup:
            self.launches.append(key)
        return kernel


def _tuner(kernel: FakeKernel, blocks: list[int], benched: list) -> Autotuner:
    def do_bench(call, quantiles=None):
        call()
        benched.append(kernel.launches[-1])
        return [1.0 / kernel.launches[-1][1]] * 3  # the largest block is fastest

    configs = [Config({"BLOCK": b}, num_warps=4) for b in blocks]
    return Autotuner(kernel, ["x", "n"], configs, key=["n"], reset_to_zero=None,
                     restore_value=None, do_bench=do_bench)


@pytest.fixture
def autotuner_restored(monkeypatch):
    monkeypatch.setattr(Autotuner, "prune_configs", Autotuner.prune_configs)


def _install(size: int, clock: CompileClock | None = None,
             around: precompile.Around = precompile.unwatched) -> CompileClock:
    clock = clock or CompileClock()
    assert precompile.install(clock.interval, around, size)
    return clock


def test_configs_compile_at_once_each_key_once(autotuner_restored):
    clock = _install(size=4)
    kernel, benched = FakeKernel(), []
    tuner = _tuner(kernel, [16, 32, 64, 128, 256, 512, 1024, 2048], benched)
    x = torch.zeros(4)
    start = time.perf_counter()
    tuner[(1,)](x, 100)
    wall = time.perf_counter() - start
    assert kernel.peak == 4  # the pool's size, not one at a time
    assert all(name.startswith("kgb-compile") for name in kernel.threads)
    assert set(kernel.compiles.values()) == {1} and len(kernel.compiles) == 8
    assert wall < 8 * COMPILE_S * 0.75  # two waves of four, not eight compiles in a row
    assert len(benched) == 8 and kernel.launches[-1] == (100, 2048)
    # counted once, as the wall time of the interval (the benchmark adds no compile)
    assert 2 * COMPILE_S * 0.9 <= clock.seconds <= wall

    # a second case with the same key tunes nothing; a new key (another specialization) tunes
    tuner[(1,)](x, 100)
    assert len(kernel.compiles) == 8 and len(benched) == 8
    tuner[(1,)](x, 7)
    assert len(kernel.compiles) == 16 and set(kernel.compiles.values()) == {1}


def test_off_compiles_one_at_a_time(autotuner_restored):
    kernel, benched = FakeKernel(), []
    _tuner(kernel, [16, 32, 64, 128], benched)[(1,)](torch.zeros(4), 100)
    assert kernel.peak == 1 and set(kernel.compiles.values()) == {1}


def _outcome(fail: dict[int, BaseException]) -> tuple[Any, Counter]:
    kernel, benched = FakeKernel(fail), []
    try:
        _tuner(kernel, [16, 32, 64, 128], benched)[(1,)](torch.zeros(4), 100)
    except Exception as exc:  # the outcome is what is compared
        return f"{type(exc).__name__}: {exc}", kernel.compiles
    return kernel.launches[-1], kernel.compiles


@pytest.mark.parametrize("fail", [{128: PTXASError("ptxas ran out")},
                                  {64: RuntimeError("a compile error")}])
def test_a_failing_config_ends_as_triton_ends_it(autotuner_restored, fail):
    """Triton's _bench scores PTXASError inf and raises anything else: the same outcome with
    and without the pre-compile (the failed config compiles again in the benchmark)."""
    without, _ = _outcome(fail)
    _install(size=4)
    with_precompile, compiles = _outcome(fail)
    assert with_precompile == without
    failing = next(iter(fail))
    assert compiles[(100, failing)] == 2
    assert isinstance(without, tuple) == isinstance(fail[failing], PTXASError)
    assert _async_compile.active_mode.get() is None  # no mode left behind


def test_a_compile_on_the_pool_is_watched(autotuner_restored):
    """The cheat against the pre-compile: Python the compile calls back into (a
    triton.constexpr_function, compiled on the pool) runs PyTorch there, where the launch's
    body watch — a per-thread dispatch mode — did not reach. Seen unwatched with
    precompile.unwatched; kgb's worker passes LaunchCounter.compile_watch."""

    def computes():
        torch.mm(torch.ones(2, 2), torch.ones(2, 2))  # the answer, computed during "compile"

    def run_with(around_of) -> set[str]:
        trace = DispatchTrace()
        counter = LaunchCounter(__file__, trace)
        _install(size=2, around=around_of(counter))
        kernel = FakeKernel(on_compile=computes)
        trace.start()  # a checked call is being traced
        try:
            _tuner(kernel, [16, 32], [])[(1,)](torch.zeros(4), 100)
        finally:
            trace.stop()
        return counter.body.ops

    assert run_with(lambda counter: precompile.unwatched) == set()  # the hole, unwatched
    seen = run_with(lambda counter: counter.compile_watch)
    assert any(op.startswith("mm in kernel _body (from test_autotune_parallel.py:")
               for op in seen), seen


def test_pool_size_is_the_sandbox_cpu_share():
    assert precompile.workers({"OMP_NUM_THREADS": "1"}) == 1
    usable = precompile.workers({"OMP_NUM_THREADS": "4096"})
    assert 1 <= usable <= 4096 and usable == len(__import__("os").sched_getaffinity(0))
    assert precompile.workers({"OMP_NUM_THREADS": "junk"}) == 1
    assert precompile.enabled({}) and not precompile.enabled({precompile.ENV: "0"})
