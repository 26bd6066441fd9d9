"""Timing validation on a GPU (docs/timing.md): for several suite solutions, kgb's timed median
(L2 flushed, fresh inputs per call) next to triton.testing.do_bench (its own L2 flush, the same
inputs every call), the profiler's kernel time (Kineto/CUPTI, every stream) and kgb's loop
without a flush on the same inputs (what a warm L2 makes of small kernels); then the run-to-run
spread of one kernel. With --cuda-graph (kgb verify's option) beside it: kgb's graph-replay loop
(L2 flushed, fresh inputs) and triton.testing.do_bench_cudagraph (neither). Prints a markdown
table and writes timing.json to OUT.

Usage (on the GPU machine): python scripts/gpu/timing_check.py OUT"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402

from kgb.bench.l2 import L2Reset  # noqa: E402
from kgb.bench.profiler import profile_call  # noqa: E402
from kgb.bench.timer import capture_clocks, summary, time_loop  # noqa: E402
from kgb.tasks.casegen import generate_inputs, load_module  # noqa: E402
from kgb.tasks.loader import load_suite  # noqa: E402

# (task, shape, dtype): large kernels for the 2 % agreement, small ones for the L2 effect
CASES = (
    ("activation.gelu_tanh", "large", "float32"),
    ("math.addcmul", "large", "float16"),
    ("normalization.softmax", None, "float32"),
    ("normalization.rms_norm", None, "bfloat16"),
    ("reduce.sum_rows", None, "float32"),
    ("matmul.matmul", None, "float16"),
    ("activation.gelu_tanh", "medium-square", "float32"),
    ("math.addcmul", None, "float32"),
    ("reduce.sum_rows", "small", "float32"),
)
SPREAD_RUNS = 5


def measure(suite, task_id: str, shape_name: str | None, dtype: str, reset: L2Reset) -> dict:
    task = suite[task_id]
    shapes = task.shapes_for("cuda")
    shape = next((s for s in shapes if s.name == shape_name), None) if shape_name else \
        max((s for s in shapes if s.gpu_only), key=lambda s: _numel(s.as_dict()))
    if shape is None:
        raise ValueError(f"{task_id} has no shape {shape_name!r}")
    inputs_module = load_module(task.inputs_path, f"inputs_{task.folder.name}")
    entry = getattr(load_module(task.solution_path, f"solution_{task.folder.name}"), task.entry)
    dims = shape.as_dict()

    def inputs_for(rep: int) -> tuple:
        return generate_inputs(inputs_module, dims, dtype, "standard", 1000 + rep, "cuda:0")

    fixed = inputs_for(0)
    call = lambda inputs: entry(*inputs)  # noqa: E731
    flushed = time_loop(call, inputs_for, reset=reset, keep=False)
    unspun = time_loop(call, inputs_for, reset=reset, keep=False, spin_ms=0.0)
    warm = time_loop(call, lambda rep: fixed, reset=None, keep=False)
    graphed = time_loop(call, inputs_for, reset=reset, keep=False, graph=True)
    bench = triton.testing.do_bench(lambda: entry(*fixed), warmup=25, rep=100,
                                    return_mode="median")
    try:
        with torch.cuda.stream(torch.cuda.Stream()):  # do_bench_cudagraph needs a side stream
            bench_graph = triton.testing.do_bench_cudagraph(lambda: entry(*fixed), rep=100,
                                                            return_mode="median")
    except Exception as exc:  # a row says it, the check goes on
        bench_graph = None
        print(f"do_bench_cudagraph {task_id}: {type(exc).__name__}: {exc}"[:300])
    profiled = []
    for rep in range(10):
        inputs = inputs_for(100 + rep)
        reset()
        torch.cuda.synchronize()
        result = profile_call(lambda inputs=inputs: entry(*inputs), torch.cuda.synchronize)
        if result is not None:
            profiled.append(result.device_ms)
    flops, bytes_ = task.cost(dims, dtype)
    stats = summary(flushed.times_ms)
    row = dict(task=task_id, shape=shape.name, dims=dims, dtype=dtype, mb=round(bytes_ / 1e6, 1),
               kgb_ms=stats["median_ms"], kgb_iqr_ms=stats["iqr_ms"], kgb_cv=stats["cv"],
               reps=len(flushed.times_ms), warm_ms=statistics.median(warm.times_ms),
               no_spin_ms=statistics.median(unspun.times_ms),
               graph_ms=statistics.median(graphed.times_ms) if graphed.graph else None,
               graph_error=graphed.graph_error, do_bench_graph_ms=bench_graph,
               do_bench_ms=bench,
               profiler_ms=statistics.median(profiled) if profiled else None,
               gbps=bytes_ / (stats["median_ms"] * 1e-3) / 1e9, flops=flops)
    if row["profiler_ms"]:
        row["kgb_vs_profiler_pct"] = 100.0 * (row["kgb_ms"] / row["profiler_ms"] - 1.0)
    del fixed
    torch.cuda.empty_cache()
    return row


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _numel(dims: dict[str, int]) -> int:
    out = 1
    for v in dims.values():
        out *= v
    return out


def spread(suite, reset: L2Reset) -> dict:
    """The same kernel timed SPREAD_RUNS times by kgb's loop: how much its median moves."""
    medians = [measure(suite, "normalization.softmax", None, "float32", reset)["kgb_ms"]
               for _ in range(SPREAD_RUNS)]
    mean = statistics.fmean(medians)
    return dict(task="normalization.softmax (largest GPU shape) float32", medians_ms=medians,
                cv=statistics.pstdev(medians) / mean, range_pct=100 * (max(medians) -
                                                                         min(medians)) / mean)


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("timing-out")
    out.mkdir(parents=True, exist_ok=True)
    capture_clocks()
    reset = L2Reset(torch.device("cuda:0"))
    suite = load_suite(ROOT / "tasks")
    rows = []
    for task_id, shape, dtype in CASES:
        try:
            rows.append(measure(suite, task_id, shape, dtype, reset))
        except Exception as exc:  # one task's failure is a row, not the end of the check
            rows.append(dict(task=task_id, shape=shape, dtype=dtype,
                             error=f"{type(exc).__name__}: {exc}"[:300]))
        print(json.dumps(rows[-1]), flush=True)
    runs = spread(suite, reset)
    env = dict(device=torch.cuda.get_device_name(0), torch=torch.__version__,
               triton=triton.__version__, cuda=torch.version.cuda)
    (out / "timing.json").write_text(json.dumps(dict(env=env, rows=rows, spread=runs), indent=1))
    print(f"\n{env}\n")
    print("| task | shape | dtype | MB | kgb ms (IQR) | CV | do_bench ms | profiler ms | "
          "kgb vs profiler | warm, no flush ms | no spin ms | graph ms | do_bench_cudagraph ms "
          "| GB/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['task']} | {r['shape']} | {r['dtype']} | error: {r['error']} |")
            continue
        vs = f"{r['kgb_vs_profiler_pct']:+.1f} %" if "kgb_vs_profiler_pct" in r else "—"
        prof = f"{r['profiler_ms']:.4f}" if r["profiler_ms"] else "—"
        print(f"| {r['task']} | {r['shape']} | {r['dtype']} | {r['mb']} | {r['kgb_ms']:.4f} "
              f"({r['kgb_iqr_ms']:.4f}) | {r['kgb_cv']:.3f} | {r['do_bench_ms']:.4f} | {prof} | "
              f"{vs} | {r['warm_ms']:.4f} | {r['no_spin_ms']:.4f} | {_ms(r['graph_ms'])} | "
              f"{_ms(r['do_bench_graph_ms'])} | {r['gbps']:.0f} |")
    print(f"\nrun-to-run: {runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
