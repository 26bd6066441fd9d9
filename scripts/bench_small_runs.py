"""The host path of small runs (issue 24's CPU targets), three figures, each as wall AND CPU
time (user + sys of kgb's whole process tree, from the kernel's rusage of the waited child):

1. a one-kernel submission that layer 1 rejects, `kgb verify SUB --out OUT` end to end
   (target <= 1.5 s on the 2-core machine);
2. `kgb.verify_kernel("activation.relu", <the suite's solution>)` on the CPU (target <= 5 s),
   in a fresh process, with where its time went (host before the job, layer 1, the sandbox's
   worker start-up and cases, the judge, the host after the job), and a second call in the same
   process (`verify_kernel_again`: a generator loop's steady state, the host's imports paid);
3. with --demo, `make demo`'s run (examples/honest, 16 jobs, --jobs 2; target <= 60 s of jobs):
   the run's wall, the jobs' span, the per-phase split of phases.json and each job's
   start-up / cases / judge (exec.json's marks).

    .venv/bin/python scripts/bench_small_runs.py [--repeat 3] [--sandbox process] [--demo]
        [--only-demo] [--root CHECKOUT] [--seed N] [--json]

A benchmark, not a test: on a shared machine the wall figures are upper bounds and the CPU
figures are what an idle machine would need. The default sandbox is `process`: with docker the
containers' CPU is not in kgb's process tree (their wall is). `--root` runs another checkout
(e.g. a `git archive` of an earlier commit) with this venv, for a before/after."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A kernel layer 1 rejects (the entry returns torch.relu: the work is PyTorch's, not Triton's).
REJECTED = '''
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


def run(x):
    return torch.relu(x)
'''

VERIFY_KERNEL = '''
import resource, sys, time
from pathlib import Path
began = time.perf_counter()
import kgb
source = Path(sys.argv[1]).read_text()


def cpu():
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


# twice in one process: a generator loop pays the host's imports once
for run in ("first", "again"):
    start, used = (began, 0.0) if run == "first" else (time.perf_counter(), cpu())
    result = kgb.verify_kernel("activation.relu", source, out=f"{sys.argv[2]}-{run}",
                               device="cpu", sandbox=sys.argv[3])
    print(run, result.verdict, round(time.perf_counter() - start, 3), round(cpu() - used, 3))
'''


def timed(argv: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """(wall s, CPU s of the child and every descendant it waited for, rc, stdout+stderr)."""
    began = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    out, _ = proc.communicate()
    wall = time.perf_counter() - began
    # communicate() reaped it already; the rusage of waited children is cumulative, so the
    # difference around the call is this child's tree (Popen's own wait is the only one here)
    return wall, _child_cpu(), proc.returncode, out


_SEEN = [0.0]


def _child_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    delta, _SEEN[0] = total - _SEEN[0], total
    return delta


def write_rejected(folder: Path) -> Path:
    (folder / "kernels").mkdir(parents=True, exist_ok=True)
    (folder / "kernels" / "relu.py").write_text(REJECTED)
    (folder / "manifest.toml").write_text(
        '[submission]\nname = "one"\n\n[[kernels]]\ntask = "activation.relu"\n'
        'file = "kernels/relu.py"\n')
    return folder


def load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def kernel_split(run: Path, wall: float) -> dict[str, float]:
    """Where one verify_kernel's wall went, from its job folder's records."""
    job = run / "jobs" / "activation.relu"
    phases, execution = load(job / "phases.json"), load(job / "exec.json")
    marks = {m["label"]: m["t"] for m in execution.get("marks", [])}
    judge = {p["name"]: p["seconds"] for p in load(job / "judge.json").get("phases", [])}
    total = phases.get("total_s", 0.0)
    split = {"static_s": phases.get("static_s", 0.0), "sandbox_s": phases.get("sandbox_s", 0.0),
             "worker_startup_s": execution.get("startup_s") or 0.0,
             "worker_cases_s": marks.get("stage timing", 0.0) - marks.get("stage cases", 0.0),
             "judge_s": phases.get("judge_s", 0.0),
             "judge_references_and_compare_s": sum(v for k, v in judge.items()
                                                   if k.startswith("cases")),
             "grade_s": phases.get("grade_s", 0.0), "job_total_s": total,
             "host_outside_the_job_s": wall - total}
    return {k: round(v, 3) for k, v in split.items()}


def demo_split(out: Path) -> dict[str, object]:
    """Per-phase sums and medians over the demo's jobs, and the jobs' span (the first plan
    written to the last verdict)."""
    jobs = [j for j in sorted((out / "jobs").iterdir()) if (j / "phases.json").exists()]
    phases = [load(j / "phases.json") for j in jobs]
    keys = ("static_s", "sandbox_s", "judge_s", "grade_s", "total_s")
    first = min((j / "plan.json").stat().st_mtime for j in jobs)
    last = max((j / "verdict.json").stat().st_mtime for j in jobs)
    verdicts = [load(j / "verdict.json").get("verdict", {}).get("verdict") for j in jobs]
    return {"jobs": len(jobs), "passed": verdicts.count("passed"),
            "jobs_span_s": round(last - first, 2),
            "sum": {k: round(sum(p.get(k) or 0.0 for p in phases), 2) for k in keys},
            "median": {k: round(statistics.median(p.get(k) or 0.0 for p in phases), 3)
                       for k in keys},
            "per_job": {j.name: job_split(j) for j in jobs}}


def job_split(job: Path) -> dict[str, float]:
    """One job's wall: the worker's start-up (Python, torch, Triton), its cases (the kernel's
    calls through the interpreter, inputs, outputs), the judge and the whole job."""
    execution, phases = load(job / "exec.json"), load(job / "phases.json")
    marks = {m["label"]: m["t"] for m in execution.get("marks", [])}
    return {"startup_s": round(execution.get("startup_s") or 0.0, 2),
            "cases_s": round(marks.get("stage timing", 0.0) - marks.get("stage cases", 0.0), 2),
            "judge_s": round(phases.get("judge_s") or 0.0, 2),
            "total_s": round(phases.get("total_s") or 0.0, 2)}


def bench(root: Path, repeat: int, sandbox: str, demo: bool, work: Path,
          small: bool = True, seed: int | None = None) -> dict:
    figures: dict[str, object] = {"root": str(root), "sandbox": sandbox, "cpus": os.cpu_count(),
                                  "load_before": os.getloadavg()}
    _child_cpu()
    if small:
        small_runs(root, repeat, sandbox, work, figures)
    if demo:
        out_dir = work / "demo"
        pinned = [] if seed is None else ["--seed", str(seed)]  # the same cases, run to run
        wall, cpu, rc, out = timed([sys.executable, "-m", "kgb.cli", "verify", "examples/honest",
                                    "--jobs", "2", "--out", str(out_dir), "--force",
                                    "--sandbox", sandbox, "--pricing",
                                    "examples/pricing.example.toml", *pinned], root)
        if rc != 0:
            raise SystemExit(f"the demo failed (rc {rc}):\n{out[-3000:]}")
        figures["demo"] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)} | \
            demo_split(out_dir)
    figures["load_after"] = os.getloadavg()
    return figures


def small_runs(root: Path, repeat: int, sandbox: str, work: Path, figures: dict) -> None:
    python = sys.executable
    sub = write_rejected(work / "rejected")
    runs = []
    for i in range(repeat):
        wall, cpu, rc, out = timed([python, "-m", "kgb.cli", "verify", str(sub), "--out",
                                    str(work / f"rejected-out-{i}"), "--force"], root)
        runs.append((wall, cpu))
        if rc != 0:
            raise SystemExit(f"kgb verify of the rejected kernel failed (rc {rc}):\n{out}")
    figures["rejected"] = _summary(runs)

    source = root / "tasks" / "Activation" / "relu" / "solution.py"
    runs, again, splits = [], [], []
    for i in range(repeat):
        run = work / f"kernel-{i}"
        wall, cpu, rc, out = timed([python, "-c", VERIFY_KERNEL, str(source), str(run),
                                    sandbox], root)
        lines = [ln.split() for ln in out.strip().splitlines() if ln.startswith(("first", "again"))]
        if rc != 0 or [ln[:2] for ln in lines] != [["first", "passed"], ["again", "passed"]]:
            raise SystemExit(f"verify_kernel did not pass (rc {rc}):\n{out[-3000:]}")
        first, second = (tuple(map(float, ln[2:])) for ln in lines)
        runs.append((first[0], cpu - second[1]))  # the process less its second call
        again.append(second)
        splits.append(kernel_split(Path(f"{run}-first") / "run", first[0]))
    middle = sorted(range(repeat), key=lambda i: runs[i][0])[repeat // 2]
    figures["verify_kernel"] = _summary(runs) | {"split_of_median_run": splits[middle]}
    figures["verify_kernel_again"] = _summary(again)


def _summary(runs: list[tuple[float, float]]) -> dict[str, object]:
    return {"wall_s": [round(w, 2) for w, _ in runs], "cpu_s": [round(c, 2) for _, c in runs],
            "median_wall_s": round(statistics.median(w for w, _ in runs), 2),
            "median_cpu_s": round(statistics.median(c for _, c in runs), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the kgb checkout to run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sandbox", default="process")
    parser.add_argument("--demo", action="store_true", help="also the 16-job demo (minutes)")
    parser.add_argument("--only-demo", action="store_true", help="the demo alone")
    parser.add_argument("--keep", type=Path, help="keep the runs' folders here (a new folder)")
    parser.add_argument("--seed", type=int, help="the demo's run seed (a before/after on the "
                        "same inputs); default: a fresh secret one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgb-bench-small-") as temp:
        work = args.keep.resolve() if args.keep else Path(temp)
        work.mkdir(parents=True, exist_ok=bool(args.keep is None))
        figures = bench(args.root.resolve(), max(1, args.repeat), args.sandbox,
                        args.demo or args.only_demo, work, small=not args.only_demo,
                        seed=args.seed)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print(f"kgb at {figures['root']}, sandbox {args.sandbox}, {figures['cpus']} CPUs, load "
          f"{figures['load_before'][0]:.1f} before, {figures['load_after'][0]:.1f} after")
    for name, target in (("rejected", "1.5"), ("verify_kernel", "5"), ("verify_kernel_again", "5")):
        row = figures.get(name)
        if row is None:
            continue
        assert isinstance(row, dict)
        print(f"{name:14} median wall {row['median_wall_s']:6.2f} s, CPU {row['median_cpu_s']:6.2f}"
              f" s (target {target} s; walls {row['wall_s']}, CPUs {row['cpu_s']})")
        if name == "verify_kernel":
            split = row["split_of_median_run"]
            print("  split (s): " + ", ".join(f"{k} {v}" for k, v in split.items()))
    if "demo" in figures:
        demo = figures["demo"]
        print(f"demo           wall {demo['wall_s']} s, CPU {demo['cpu_s']} s, jobs span "
              f"{demo['jobs_span_s']} s (target 60 s), {demo['passed']}/{demo['jobs']} passed")
        print(f"  phases summed over jobs (s): {demo['sum']}")
        print(f"  phases, median job (s):      {demo['median']}")
        rows = sorted(demo["per_job"].items(), key=lambda kv: -kv[1]["total_s"])
        print("  per job, longest first (s):   start-up / cases / judge / total")
        for name, row in rows:
            print(f"    {name:32} {row['startup_s']:6.2f} {row['cases_s']:6.2f} "
                  f"{row['judge_s']:6.2f} {row['total_s']:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
