"""The autotune target's floor (issue 24): what one `kgb verify` job of an autotuned matmul must
spend compiling and benchmarking, from Triton's own code and compiles measured here — no GPU.

    env -u TRITON_INTERPRET PYTHONPATH=.cache/aot-triton-3.6.0 \\
        .venv/bin/python scripts/autotune_floor.py [--repeat 3] [--sample 0] [--cores 16]

(`make aot-check` installs .cache/aot-triton-3.6.0, the GPU image's Triton, aside from .venv.)
Prints, for tests/fixtures/autotune/matmul_64_configs.py against matmul.matmul's GPU plan:

1. keys: the fixture's entry runs every call of every GPU case on meta tensors (no memory, no
   arithmetic) as the worker runs them, one process for the job as kgb's worker is; Triton's
   Autotuner.run is the real one, its _bench is replaced by a counter (every config "takes"
   0 ms). The tunings (new keys in Autotuner.cache) and the configs benchmarked are counted.
   The FlagGems-style fixture (early_config_prune) is counted beside it (--also).
2. binaries: each launch (bench or not) is bound as Triton's JIT binds it for sm_90
   (create_function_from_signature: dtypes, 16-divisibility, ints equal to 1, pointer
   alignment) and its compile key kept: distinct (signature, specialization, config).
3. compile seconds: each distinct binary of the job (or --sample N configs of each
   dtype/specialization group) compiled to cubin with triton.compile (ptxas included), Triton's
   cache bypassed (always_compile), --repeat times in rounds; per binary the median of CPU
   seconds (this process + ptxas, os.times) and wall, split by stage (Triton's
   compilation listener). The first key of each specialization pre-compiles its group on
   --cores threads: at least max(CPU / cores, its slowest binary, its Python codegen). Then
   a thread-pool check (a sample on --pool threads, as kgb's pre-compile runs them) and a GIL
   probe (the longest time a Python thread waits while a compile runs beside it).
4. the benchmark floor: Triton's do_bench (the autotuner's default benchmarker on CUDA) times
   a config with 1 call, 5 estimate calls each after an L2 flush (zeroing a 256 MiB buffer),
   max(1, warmup/est) warm-up calls and max(1, rep/est) timed calls each after a flush. Its GPU
   time, with each call at the fastest any config could run (FLOPs at the card's CUDA-core
   peak — the fixture's ieee dot uses no tensor cores, checked in the PTX — or bytes at its
   bandwidth) and the flush at full bandwidth, is a floor that no config of any speed beats.
5. the model: compile CPU-seconds / --cores (perfect parallelism) + benchmark floor against
   --target-s.

The dev machine is small and may be loaded: the load average is printed with the figures.
The compile phase took 9-11 minutes with the defaults on the 2-core dev machine (576 binaries
x 3, session 35: docs/performance.md, "The autotune target's floor"); --sample 4 takes ~1.
Exit status 0; 2 when Triton cannot compile here (TRITON_INTERPRET set, no ptxas)."""

from __future__ import annotations

import argparse
import inspect
import itertools
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "autotune"
# Triton's stages as its compilation listener names them: the code generator walks the kernel's
# Python AST in Python (the GIL held), the MLIR/LLVM passes run in C++, ptxas in a subprocess.
STAGE_GROUPS = {"codegen (Python)": ("ir_initialization",),
                "MLIR/LLVM": ("ttir", "ttgir", "llir", "ptx"), "ptxas": ("cubin",)}


# ----------------------------------------------------------------------------- 1 and 2: counts
@dataclass
class Binary:
    """One distinct compilation: what triton.compile gets."""

    fn: Any
    signature: dict
    constexprs: dict
    attrs: dict
    options: dict
    dtype: str  # the first pointer's element type
    spec: str  # which int arguments are 16-divisible (D) or 1
    config: str
    shapes: set = field(default_factory=set)  # the task's shapes whose launches bind it


@dataclass
class Counts:
    kernel: str
    cases: int = 0
    calls: int = 0
    tunings: list = field(default_factory=list)  # autotune keys, in the order tuned
    benched: int = 0  # configs benchmarked (Autotuner._bench calls)
    per_key: dict = field(default_factory=dict)  # key -> configs benchmarked
    binaries: dict = field(default_factory=dict)  # compile key -> Binary
    shapes: dict = field(default_factory=dict)  # key -> (shape name, dims, dtype)
    current: str = ""  # the shape of the case being run


def _is_meta(fn: Any, name: str) -> bool:
    """A parameter declared tl.constexpr (a config value), not an int specialized to 1."""
    return any(p.name == name and p.is_constexpr for p in fn.params)


@contextmanager
def _patched(counts: Counts, backend: Any) -> Iterator[None]:
    """JITFunction.run records the launch's compile key and launches nothing; Autotuner._bench
    counts the config and "launches" it (so every benchmarked config's binary is recorded)."""
    from triton import knobs
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction, create_function_from_signature

    old_run, old_bench = JITFunction.run, Autotuner._bench
    binders: dict[int, Any] = {}

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> None:
        kwargs = dict(kwargs)
        kwargs["debug"] = kwargs.get("debug", self.debug) or knobs.runtime.debug
        for knob in ("instrumentation_mode", "fpsan_homomorphic_casts"):  # as run() adds them
            if hasattr(knobs.compilation, knob):
                kwargs[knob] = getattr(knobs.compilation, knob)
        binder = binders.setdefault(id(self), create_function_from_signature(
            self.signature, self.params, backend))
        bound, specialization, options = binder(*args, **kwargs)
        options, signature, constexprs, attrs = self._pack_args(backend, kwargs, bound,
                                                                specialization, options)
        key = (self.fn.__qualname__, repr(signature), repr(constexprs), repr(attrs),
               repr(sorted(options.__dict__.items())))
        if key not in counts.binaries:
            meta = {self.arg_names[i]: v for (i,), v in constexprs.items()
                    if _is_meta(self, self.arg_names[i])}
            config = f"{meta} w{options.num_warps} s{options.num_stages}"
            first_ptr = next(v for v in signature.values() if str(v).startswith("*"))
            counts.binaries[key] = Binary(self, signature, constexprs, attrs, options.__dict__,
                                          str(first_ptr)[1:], _spec_label_simple(
                                              self, signature, attrs, constexprs), config)
        counts.binaries[key].shapes.add(counts.current)

    def bench(self: Any, *args: Any, config: Any, **kwargs: Any) -> list[float]:
        counts.benched += 1
        self.fn.run(*args, **kwargs, **config.all_kwargs())
        return [0.0, 0.0, 0.0]

    old_autotune_run = Autotuner.run

    def autotune_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = set(self.cache)
        benched = counts.benched
        result = old_autotune_run(self, *args, **kwargs)
        for key in set(self.cache) - before:
            counts.tunings.append(key)
            counts.per_key[key] = counts.benched - benched
        return result

    JITFunction.run, Autotuner._bench, Autotuner.run = run, bench, autotune_run
    try:
        yield
    finally:
        JITFunction.run, Autotuner._bench, Autotuner.run = old_run, old_bench, old_autotune_run


def _spec_label_simple(fn: Any, signature: dict, attrs: dict, constexprs: dict) -> str:
    names = list(signature)
    div = [names[i] for (i,), v in attrs.items()
           if any(a[0] == "tt.divisibility" for a in v) and str(signature[names[i]])[0] == "i"]
    ptrs = [n for n in names if str(signature[n]).startswith("*")]
    aligned = [names[i] for (i,), v in attrs.items() if names[i] in ptrs]
    ones = [names[i] for (i,), v in constexprs.items()
            if not _is_meta(fn, names[i]) and v == 1]
    return (f"16|: {','.join(div) or 'none'}; ==1: {','.join(ones) or 'none'}; "
            f"ptr aligned {len(aligned)}/{len(ptrs)}")


def count_job(kernel_path: Path, task_id: str, backend: Any) -> Counts:
    """Every call of every GPU case of the task, in plan order, in one process."""
    import torch  # noqa: F401

    from kgb.runner.plan import plan_cases
    from kgb.tasks.casegen import load_module, make_generator
    from kgb.tasks.index import index_suite
    sys.path.insert(0, str(ROOT / "scripts"))
    from aot_check import _meta_mode

    task = index_suite(ROOT / "tasks").load(task_id)
    stem = kernel_path.stem
    inputs = load_module(task.inputs_path, f"_floor_inputs_{stem}")
    kernel = load_module(kernel_path, f"_floor_kernel_{stem}")
    entry = getattr(kernel, task.entry)
    counts = Counts(kernel_path.name)
    with _patched(counts, backend):
        for case in plan_cases(task, "cuda", 1):
            counts.cases += 1
            counts.current = case.shape.name
            for call in case.calls:
                counts.calls += 1
                before = len(counts.tunings)
                with _meta_mode():
                    made = inputs.make_inputs(case.shape.as_dict(), case.dtype,
                                              make_generator("cpu", call.seed % 2**63), case.mode)
                    entry(*(tuple(made) if isinstance(made, (tuple, list)) else (made,)))
                for key in counts.tunings[before:]:
                    counts.shapes[key] = (case.shape.name, case.shape.as_dict(), case.dtype)
    return counts


# ----------------------------------------------------------------------------- 3: compiles
@dataclass
class Timing:
    cpu: float  # this process (all threads) + children (ptxas)
    wall: float
    ptxas_cpu: float
    stages: dict  # stage -> wall seconds (Triton's listener)


def compile_once(binary: Binary, target: Any) -> Timing:
    import triton
    from triton import knobs
    from triton.compiler import ASTSource

    seen: dict[str, Any] = {}

    def listener(*, src: Any, metadata: Any, metadata_group: Any, times: Any,
                 cache_hit: bool) -> None:
        seen["times"] = times

    knobs.compilation.listener = listener
    try:
        source = ASTSource(binary.fn, binary.signature, binary.constexprs, binary.attrs)
        t0, r0 = time.perf_counter(), os.times()
        triton.compile(source, target=target, options=binary.options)
        t1, r1 = time.perf_counter(), os.times()
    finally:
        knobs.compilation.listener = None
    stages: dict[str, float] = {}
    ct = seen.get("times")
    if ct is not None:
        stages["ir_initialization"] = ct.ir_initialization / 1e6
        for name, us in ct.lowering_stages:
            stages[name] = us / 1e6
    child = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    own = (r1.user - r0.user) + (r1.system - r0.system)
    return Timing(own + child, t1 - t0, child, stages)


def _median_timing(runs: list[Timing]) -> Timing:
    stages = {s: statistics.median(r.stages.get(s, 0.0) for r in runs) for s in runs[0].stages}
    return Timing(statistics.median(r.cpu for r in runs), statistics.median(r.wall for r in runs),
                  statistics.median(r.ptxas_cpu for r in runs), stages)


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def measure_compiles(binaries: list[Binary], target: Any, repeat: int) -> dict[int, Timing]:
    """Each binary `repeat` times, in rounds (round r compiles every binary once), so a change
    of the machine's load spreads over all binaries; the median per binary."""
    runs: dict[int, list[Timing]] = defaultdict(list)
    compile_once(binaries[0], target)  # the first compile loads libdevice, dialects: not counted
    for r in range(repeat):
        began = time.perf_counter()
        for i, binary in enumerate(binaries):
            runs[i].append(compile_once(binary, target))
        print(f"  round {r + 1}/{repeat}: {len(binaries)} compiles in "
              f"{time.perf_counter() - began:.0f} s (load {_load()})", flush=True)
    return {i: _median_timing(t) for i, t in runs.items()}


def pool_check(binaries: list[Binary], target: Any, threads: int) -> tuple[float, float, float]:
    """The same binaries serially and on a thread pool (kgb's pre-compile: Triton's
    AsyncCompileMode on a ThreadPoolExecutor): serial wall, pool wall, pool CPU."""
    began = time.perf_counter()
    for binary in binaries:
        compile_once(binary, target)
    serial = time.perf_counter() - began
    r0, began = os.times(), time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda b: compile_once(b, target), binaries))
    pooled, r1 = time.perf_counter() - began, os.times()
    cpu = sum(getattr(r1, f) - getattr(r0, f)
              for f in ("user", "system", "children_user", "children_system"))
    return serial, pooled, cpu


def gil_probe(binary: Binary, target: Any) -> tuple[float, float, float]:
    """A Python thread that wakes every 0.5 ms while a compile runs on the main thread: the
    longest wait it sees and the waits over 10 ms in total. A compile that held the GIL through
    its C++ passes would stall it for their whole length (hundreds of ms)."""
    stamps: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0005)

    thread = threading.Thread(target=probe)
    thread.start()
    time.sleep(0.1)
    t0 = time.perf_counter()
    compile_once(binary, target)
    t1 = time.perf_counter()
    time.sleep(0.05)
    stop.set()
    thread.join()
    gaps = [b - a for a, b in itertools.pairwise(stamps) if t0 <= a <= t1]
    return t1 - t0, max(gaps, default=0.0), sum(g for g in gaps if g > 0.01)


def ptx_uses_tensor_cores(binary: Binary, target: Any) -> bool:
    import triton
    from triton.compiler import ASTSource

    source = ASTSource(binary.fn, binary.signature, binary.constexprs, binary.attrs)
    ptx = triton.compile(source, target=target, options=binary.options).asm["ptx"]
    return bool(re.search(r"\b(wgmma|mma)\.", ptx))


# ----------------------------------------------------------------------------- 4: benchmark
@dataclass
class Bench:
    warmup_ms: float
    rep_ms: float
    flush_bytes: int
    quantiles: tuple


def bench_defaults() -> Bench:
    """do_bench's warmup/rep defaults and the flush buffer, read from the installed Triton."""
    from triton import testing
    from triton.backends.nvidia import driver as nvdriver
    from triton.runtime import autotuner

    params = inspect.signature(testing.do_bench).parameters
    text = inspect.getsource(nvdriver.CudaDriver.get_empty_cache_for_benchmark)
    found = re.search(r"cache_size\s*=\s*([0-9* ]+)", text)
    flush = 256 * 2**20
    if found:  # a product of integers, e.g. `256 * 1024 * 1024`
        flush = 1
        for factor in found.group(1).split("*"):
            flush *= int(factor)
    quant = re.search(r"quantiles=\(([^)]*)\)", inspect.getsource(autotuner.Autotuner._bench))
    return Bench(params["warmup"].default, params["rep"].default, flush,
                 tuple(float(q) for q in quant.group(1).split(",")) if quant else ())


def do_bench_ms(t: float, flush: float, bench: Bench) -> tuple[float, int]:
    """GPU milliseconds of triton.testing.do_bench for a call of t ms and a flush of `flush` ms
    (its code: 1 call; 5 x (flush + call) to estimate; n_warmup calls; n_repeat x (flush +
    call)), and the calls made. Host time is not counted: a floor."""
    est = flush + t
    n_warmup = max(1, int(bench.warmup_ms / est))
    n_repeat = max(1, int(bench.rep_ms / est))
    return t + 5 * est + n_warmup * t + n_repeat * est, 1 + 5 + n_warmup + n_repeat


def call_floor_ms(shape: tuple, peaks: Any, share: float) -> float:
    """The fastest a matmul call of this shape can run: its FLOPs at `share` of the CUDA-core
    fp32 peak (the fixtures' ieee dot uses no tensor cores), or its bytes at full bandwidth."""
    _, dims, dtype = shape
    m, n, k = dims["M"], dims["N"], dims["K"]
    return max(2 * m * n * k / (share * peaks.tflops["float32_simt"] * 1e12),
               (m * k + k * n + m * n) * _itemsize(dtype) / (peaks.bandwidth_gbps * 1e9)) * 1e3


def bench_floor(counts: Counts, peaks: Any, flush_ms: float, bench: Bench,
                share: float = 1.0) -> tuple[float, int]:
    """Seconds and kernel calls of the job's autotuning benchmarks, each call at its floor."""
    seconds, calls = 0.0, 0
    for key in counts.tunings:
        per, n = do_bench_ms(call_floor_ms(counts.shapes[key], peaks, share), flush_ms, bench)
        seconds += per * counts.per_key[key] / 1e3
        calls += n * counts.per_key[key]
    return seconds, calls


def _itemsize(dtype: str) -> int:
    return {"float32": 4, "float16": 2, "bfloat16": 2}[dtype]


# ----------------------------------------------------------------------------- report
def _table(rows: list[list[str]], head: list[str]) -> None:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for row in [head, *rows]:
        print("  " + "  ".join(str(c).rjust(w) if j else str(c).ljust(w)
                               for j, (c, w) in enumerate(zip(row, widths))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", type=Path, default=FIXTURES / "matmul_64_configs.py")
    parser.add_argument("--also", type=Path, nargs="*",
                        default=[FIXTURES / "flaggems_style_matmul.py"],
                        help="kernels counted (keys, configs) but not compiled")
    parser.add_argument("--task", default="matmul.matmul")
    parser.add_argument("--repeat", type=int, default=3, help="compiles of each binary")
    parser.add_argument("--sample", type=int, default=0,
                        help="configs compiled per dtype/specialization group (0: all)")
    parser.add_argument("--pool", type=int, default=os.cpu_count() or 1,
                        help="threads of the thread-pool check (0: skip it)")
    parser.add_argument("--pool-binaries", type=int, default=16)
    parser.add_argument("--skip-compile", action="store_true", help="counts and floor only")
    parser.add_argument("--cores", type=int, default=16, help="the GPU host's cores (model)")
    parser.add_argument("--gpu", default="H100", help="datasheet part for the floor")
    parser.add_argument("--target-s", type=float, default=120.0)
    parser.add_argument("--arch", type=int, default=90)
    args = parser.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        print("autotune_floor: unset TRITON_INTERPRET (the interpreter compiles nothing)")
        return 2
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="autotune-floor-"))
    sys.path.insert(0, str(ROOT))
    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend

    from kgb.bench.hw import datasheet

    ptxas = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
    if not ptxas.exists():
        print(f"autotune_floor: no ptxas at {ptxas}: cannot compile to cubin here")
        return 2
    ptxas_version = subprocess.run([str(ptxas), "--version"], capture_output=True,
                                   text=True).stdout.strip().splitlines()[-1]
    target = GPUTarget("cuda", args.arch, 32)
    backend = make_backend(target)
    print(f"Triton {triton.__version__} ({Path(triton.__file__).parent}), sm_{args.arch}, "
          f"ptxas {ptxas_version}")
    print(f"machine: {os.cpu_count()} cores, load average {_load()} (1 / 5 / 15 min)")
    if triton.__version__ != "3.6.0":
        print("  note: not the GPU image's Triton 3.6.0: the figures are this version's")

    # 1 and 2 -----------------------------------------------------------------------------
    print(f"\n== 1. autotune keys: {args.task}'s GPU plan, one job (one worker process)")
    src = inspect.getsource(__import__("triton.runtime.autotuner",
                                       fromlist=["Autotuner"]).Autotuner.run)
    dtype_in_key = "key.append(str(arg.dtype))" in src
    print(f"  Autotuner.run's key: the `key` args' values"
          f"{' + str(dtype) of every tensor argument' if dtype_in_key else ''} "
          f"(read from triton/runtime/autotuner.py)")
    all_counts = []
    for path in [args.kernel, *args.also]:
        counts = count_job(path, args.task, backend)
        all_counts.append(counts)
        per_key = sorted(set(counts.per_key.values()))
        print(f"  {counts.kernel}: {counts.cases} cases, {counts.calls} calls -> "
              f"{len(counts.tunings)} tunings, {counts.benched} configs benchmarked "
              f"(per key: {', '.join(map(str, per_key))}), {len(counts.binaries)} distinct "
              f"binaries")
    counts = all_counts[0]
    print(f"\n  {counts.kernel}, the keys in the order tuned:")
    _table([[str(k[:3]), "/".join(map(str, k[3:])).replace("torch.", ""), counts.shapes[k][0],
             counts.per_key[k]] for k in counts.tunings],
           ["(M, N, K)", "dtypes (a/b/c)", "shape", "benched"])

    print(f"\n== 2. distinct binaries of {counts.kernel} "
          "(the in-memory kernel cache reuses one across keys)")
    groups: dict[tuple[str, str], list[Binary]] = defaultdict(list)
    for binary in counts.binaries.values():
        groups[(binary.dtype, binary.spec)].append(binary)
    rows = []
    for (dtype, spec), members in sorted(groups.items()):
        shapes = sorted({s for b in members for s in b.shapes})
        rows.append([dtype, spec, len(members), ", ".join(shapes)])
    _table(rows, ["dtype", "specialization", "binaries", "shapes (keys) that launch them"])
    print(f"  total: {len(counts.binaries)} binaries for {counts.benched} configs benchmarked")

    # 3 ---------------------------------------------------------------------------------------
    compile_cpu = None
    largest = largest_cpu = bound = 0.0
    if not args.skip_compile:
        rng = random.Random(0)
        chosen: list[Binary] = []
        for members in groups.values():
            chosen += members if not args.sample else rng.sample(
                members, min(args.sample, len(members)))
        print(f"\n== 3. compile seconds to cubin (ptxas included), {len(chosen)} binaries x "
              f"{args.repeat}, medians per binary")
        fp32 = next((b for b in chosen if b.dtype == "fp32"), chosen[0])
        print(f"  tensor cores in the PTX of {fp32.dtype} {fp32.config}: "
              f"{ptx_uses_tensor_cores(fp32, target)}")
        half = next((b for b in chosen if b.dtype != "fp32"), None)
        if half is not None:
            print(f"  tensor cores in the PTX of {half.dtype} {half.config}: "
                  f"{ptx_uses_tensor_cores(half, target)}")
        knobs.compilation.always_compile = True
        medians = measure_compiles(chosen, target, args.repeat)
        by_binary = {id(b): medians[i] for i, b in enumerate(chosen)}
        rows, compile_cpu, compile_wall, bound = [], 0.0, 0.0, 0.0
        stage_cpu: dict[str, float] = defaultdict(float)
        for (dtype, spec), members in sorted(groups.items()):
            measured = [by_binary[id(b)] for b in members if id(b) in by_binary]
            cpus = [m.cpu for m in measured]
            mean = statistics.fmean(cpus)
            group_cpu = mean * len(members)  # measured sum, or the sample's mean x the group
            compile_cpu += group_cpu
            compile_wall += statistics.fmean(m.wall for m in measured) * len(members)
            largest = max(largest, max(m.wall for m in measured))
            largest_cpu = max(largest_cpu, max(cpus))
            for m in measured:
                for name, stages in STAGE_GROUPS.items():
                    stage_cpu[name] += sum(m.stages.get(s, 0.0) for s in stages) * \
                        len(members) / len(measured)
            # The first key of a specialization pre-compiles the group's binaries at once: on
            # `cores` threads it lasts at least its CPU / cores, its slowest binary, and its
            # code generation (Python: one thread at a time), CPU-scaled from its wall share.
            codegen = statistics.fmean(m.stages.get("ir_initialization", 0.0) * m.cpu / m.wall
                                       for m in measured) * len(members)
            bound += max(group_cpu / args.cores, max(cpus), codegen)
            rows.append([dtype, spec.split(";")[0], f"{len(measured)}/{len(members)}",
                         f"{statistics.median(cpus):.2f}", f"{min(cpus):.2f}",
                         f"{max(cpus):.2f}", f"{statistics.median(m.wall for m in measured):.2f}",
                         f"{statistics.median(m.ptxas_cpu for m in measured):.2f}",
                         f"{group_cpu:.0f}"])
        _table(rows, ["dtype", "16-divisible ints", "measured", "cpu med", "min", "max",
                      "wall med", "ptxas", "group cpu-s"])
        total_stage = sum(stage_cpu.values()) or 1.0
        print(f"  the job's {len(counts.binaries)} binaries: {compile_cpu:.0f} CPU-s here "
              f"(serial wall {compile_wall:.0f} s); by stage (wall shares): " + ", ".join(
                  f"{k} {100 * v / total_stage:.0f} %" for k, v in stage_cpu.items()))
        print(f"  the slowest binary: {largest:.2f} s wall, {largest_cpu:.2f} CPU-s (a key's "
              "pre-compile lasts at least that long whatever the cores)")
        print(f"  pre-compile on {args.cores} threads, summed over the {len(groups)} keys that "
              f"compile (each: max(CPU / {args.cores}, slowest binary, Python codegen)): "
              f">= {bound:.1f} s")
        print(f"  load average after: {_load()}")
        if args.pool:
            sample = random.Random(1).sample(chosen, min(args.pool_binaries, len(chosen)))
            serial, pooled, cpu = pool_check(sample, target, args.pool)
            print(f"  thread pool ({args.pool} threads, {len(sample)} binaries): serial "
                  f"{serial:.1f} s, pool {pooled:.1f} s (x{serial / pooled:.2f}, CPU "
                  f"{cpu:.1f} s) at load {_load()}")
        slow = max(chosen, key=lambda b: by_binary[id(b)].wall)
        took, worst, stalled = gil_probe(slow, target)
        print(f"  GIL probe: a compile of {took:.2f} s beside a Python thread waking every "
              f"0.5 ms: its longest wait {1000 * worst:.0f} ms, waits > 10 ms {stalled:.2f} s")

    # 4 ---------------------------------------------------------------------------------------
    peaks = datasheet(args.gpu)
    bench = bench_defaults()
    print(f"\n== 4. benchmark floor on {args.gpu} (datasheet: {peaks.bandwidth_gbps:.0f} GB/s, "
          f"CUDA-core fp32 {peaks.tflops['float32_simt']} TFLOP/s)")
    print(f"  do_bench(warmup={bench.warmup_ms} ms, rep={bench.rep_ms} ms), quantiles "
          f"{bench.quantiles}; L2 flush: zero a {bench.flush_bytes >> 20} MiB buffer before "
          "each estimate and timed call")
    flush_ms = bench.flush_bytes / (peaks.bandwidth_gbps * 1e9) * 1e3
    rows = []
    for key in counts.tunings:
        name, _, dtype = counts.shapes[key]
        t_ms = call_floor_ms(counts.shapes[key], peaks, 1.0)
        per, calls = do_bench_ms(t_ms, flush_ms, bench)
        rows.append([name, dtype, f"{t_ms:.4f}", calls, f"{per:.1f}",
                     f"{per * counts.per_key[key] / 1e3:.1f}"])
    _table(rows, ["shape", "dtype", "call ms >=", "calls/config", "ms/config >=", "key s >="])
    floor_s, calls_total = bench_floor(counts, peaks, flush_ms, bench)
    for share in (0.5, 0.25, 0.1):  # a what-if, not a measurement: the calls' speed is unknown
        print(f"  what-if, every config at {100 * share:.0f} % of the CUDA-core peak: "
              f"{bench_floor(counts, peaks, flush_ms, bench, share)[0]:.0f} s")
    zero, _ = do_bench_ms(0.0, flush_ms, bench)
    print(f"  flush {flush_ms:.3f} ms; a config whose call took no time: {zero:.1f} ms")
    print(f"  floor: {floor_s:.1f} s for {counts.benched} configs benchmarked "
          f"({calls_total} kernel calls at least)")
    for other in all_counts[1:]:
        print(f"  {other.kernel}: floor {bench_floor(other, peaks, flush_ms, bench)[0]:.1f} s "
              f"for {other.benched} configs benchmarked")

    # 5 ---------------------------------------------------------------------------------------
    print(f"\n== 5. model: compile CPU-s / {args.cores} cores + benchmark floor, "
          f"target {args.target_s:.0f} s")
    if compile_cpu is not None:
        comp = compile_cpu / args.cores
        print(f"  compile {compile_cpu:.0f} / {args.cores} = {comp:.1f} s (CPU-seconds of this "
              f"machine; perfect parallelism); with each key's bound: {bound:.1f} s")
    else:
        comp = 0.0
        print("  compile: not measured (--skip-compile)")
    print(f"  benchmark floor {floor_s:.1f} s")
    total = comp + floor_s
    print(f"  total >= {total:.1f} s: {'over' if total > args.target_s else 'within'} "
          f"{args.target_s:.0f} s; the benchmark floor alone is "
          f"{'over' if floor_s > args.target_s else 'within'} it")
    per_cfg = floor_s / max(1, counts.benched)
    print(f"  configs the floor allows in {args.target_s:.0f} s minus compile: "
          f"{max(0.0, args.target_s - comp) / per_cfg:.0f} (at {1000 * per_cfg:.0f} ms each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
