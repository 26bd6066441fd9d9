"""kgb and KernelBench's own evaluator on the same kernels, on the same GPU, in one run
(docs/performance.md): what a harness costs per candidate.

    python scripts/kernelbench/side_by_side.py --kernelbench DIR --out OUT [--sandbox bwrap]

DIR holds KernelBench's `kernelbench` package (scripts/gpu/prepare.sh copies it from a KernelBench
checkout into .device/kernelbench; its Python dependencies travel as wheels in .whl/kernelbench).
For each problem in problems/ (written for this comparison in KernelBench's format) and its
`ModelNew` answer in submission/kernels/:
- KernelBench: `eval_kernel_against_ref` (5 correctness trials, 100 timed trials, cuda_event
  timing, backend "triton") in a fresh Python process, timed from spawn to exit;
- kgb: `kgb verify` of the same answer against the task `kgb tasks import-kernelbench` made of
  the same problem (every layer on, timing and baselines as by default), timed the same way,
  with its own steps from scripts/bench_overhead.py.
Prints one table and writes OUT/side_by_side.json. Needs a CUDA GPU."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PAIRS = (("1_GELU_large.py", "gelu_large.py", "activation.kb_1_gelu_large"),
         ("2_Softmax_wide.py", "softmax_wide.py", "normalization.kb_2_softmax_wide"))


def _stub_llm_clients() -> None:
    """kernelbench.utils imports LLM clients (openai, litellm) and dotenv at module level; the
    evaluator never calls them. Stand-ins let the package import without them."""
    stubs = {"openai": {"OpenAI": object}, "litellm": {"completion": None},
             "dotenv": {"load_dotenv": lambda *a, **k: None}}
    for name, attrs in stubs.items():
        try:
            __import__(name)
        except ImportError:
            module = types.ModuleType(name)
            module.__dict__.update(attrs)
            sys.modules[name] = module


def kernelbench_one(kernelbench: Path, problem: Path, kernel: Path) -> dict:
    """In the child: KernelBench's evaluator on one pair, its result as a dict."""
    sys.path.insert(0, str(kernelbench))
    _stub_llm_clients()
    import torch
    from kernelbench.eval import eval_kernel_against_ref

    result = eval_kernel_against_ref(problem.read_text(), kernel.read_text(), seed_num=42,
                                     num_correct_trials=5, num_perf_trials=100,
                                     measure_performance=True, timing_method="cuda_event",
                                     device=0, backend="triton", precision=torch.float32)
    return {"compiled": result.compiled, "correctness": result.correctness,
            "runtime_ms": result.runtime, "ref_runtime_ms": result.ref_runtime,
            "metadata": {k: str(v)[:300] for k, v in result.metadata.items()}}


def timed(argv: list[str], env: dict | None = None) -> tuple[float, subprocess.CompletedProcess]:
    start = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env)
    return time.monotonic() - start, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelbench", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--only", help="one task id of the kit (default: every problem)")
    parser.add_argument("--kgb-arg", action="append", default=[],
                        help="passed on to kgb verify, e.g. --kgb-arg=--limit=output=48g")
    parser.add_argument("--kb-one", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.kb_one:
        print(json.dumps(kernelbench_one(args.kernelbench, *args.kb_one)))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    kgb = [sys.executable, "-m", "kgb.cli"]
    tasks = args.out / "tasks"
    seconds, proc = timed(kgb + ["tasks", "import-kernelbench", str(HERE / "problems"),
                                 "--out", str(tasks)])
    rows: list[dict] = [{"step": "kgb tasks import-kernelbench", "seconds": round(seconds, 1),
                         "rc": proc.returncode}]
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        return 1
    for problem, kernel, task in PAIRS:
        if args.only and task != args.only:
            continue
        row: dict = {"task": task}
        kb_env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.environ.get("KB_SITE", ""), os.environ.get("PYTHONPATH", "")]))
        seconds, proc = timed([sys.executable, __file__, "--kernelbench", str(args.kernelbench),
                               "--out", str(args.out), "--kb-one", str(HERE / "problems" / problem),
                               str(HERE / "submission" / "kernels" / kernel)], kb_env)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        row["kernelbench"] = dict(json.loads(lines[-1]) if lines else
                                  {"error": (proc.stderr or proc.stdout)[-600:]},
                                  wall_s=round(seconds, 1))
        run = args.out / f"kgb-{task}"
        seconds, proc = timed(kgb + ["verify", str(HERE / "submission"), "--tasks", str(tasks),
                                     "--only", task, "--device", "cuda", "--sandbox",
                                     args.sandbox, "--out", str(run), "--force",
                                     *args.kgb_arg])
        report = run / "report.json"
        job = next((j for j in json.loads(report.read_text())["jobs"] if j["task"] == task),
                   {}) if report.exists() else {}
        bench = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_overhead.py"),
                                str(run), "--json"], capture_output=True, text=True, cwd=ROOT)
        timeline = run / "host_timeline.json"  # the host's marks: its wall outside the job
        row["kgb"] = {"wall_s": round(seconds, 1), "rc": proc.returncode,
                      "verdict": job.get("verdict"), "message": job.get("message"),
                      "time_ms": job.get("time_ms"), "speedup_eager": job.get("speedup_eager"),
                      "host_timeline": json.loads(timeline.read_text())
                      if timeline.exists() else None,
                      "overhead": json.loads(bench.stdout) if bench.returncode == 0 else None}
        rows.append(row)
        print(json.dumps(row)[:2000], flush=True)
    (args.out / "side_by_side.json").write_text(json.dumps(rows, indent=1))
    print(f"{'task':34} {'KernelBench s':>13} {'correct':>7} {'runtime ms':>10} "
          f"{'kgb s':>7} {'verdict':>8} {'time ms':>8}")
    for row in rows[1:]:
        kb, kg = row["kernelbench"], row["kgb"]
        print(f"{row['task']:34} {kb['wall_s']:>13} {kb.get('correctness')!s:>7} "
              f"{kb.get('runtime_ms', '-'):>10} {kg['wall_s']:>7} {kg['verdict']!s:>8} "
              f"{kg['time_ms'] or '-':>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
