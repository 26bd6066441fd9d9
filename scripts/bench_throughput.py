"""Kernels verified per GPU-hour: kgb beside KernelBench's evaluator on one batch (issue 24).

    python scripts/bench_throughput.py --out OUT --kernelbench DIR [--sandbox bwrap]
    python scripts/bench_throughput.py --out OUT --dry-run          # CPU: kgb's half only

The batch (scripts/kernelbench/batch/, written by make_batch.py): 9 KernelBench problems — the
kit's two and seven of kgb's suite tasks in KernelBench's format — each answered by four honest
`ModelNew` Triton kernels (block size and warps differ; the kit's 1.6 G-element softmax by one),
as four kgb submissions: 33 kernels.

- KernelBench: its evaluator (`eval_kernel_against_ref`: 5 correctness trials, 100 timed trials,
  as scripts/kernelbench/side_by_side.py runs it) in a fresh process per kernel, one at a time
  per GPU — its batch style;
- kgb: the problems imported once (`kgb tasks import-kernelbench`, timed apart: it is per task,
  not per kernel), then ONE `kgb verify` of the four submissions (a batch: one seed, one
  reference cache, every layer, timing and both baselines; `--devices` over the GPUs used)
  with a fresh baseline store, then (`kgb-warm`) the same again with the store the first run
  filled — what KernelBench's own baseline figures are, timings measured once ahead
  (docs/decisions.md) — and the same with `--timing off`.

Prints kernels per GPU-hour for each (kernels / (wall seconds x GPUs) x 3600), kgb's over
KernelBench's, kgb's split per job (phases.json: static, sandbox, judge, grade; and
scripts/bench_overhead.py's buckets: sandbox, compile, correctness, anti-cheat, timing,
baselines, host), the device and versions. Writes OUT/bench_throughput.json; `--phase` runs one
part (import, kernelbench, kgb, kgb-off) and merges it into that file, so the parts may run in
separate calls on one machine, and `--phase report` prints what is there. Not a test: the
figures are the machine's."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KIT = HERE / "kernelbench"
BATCH = KIT / "batch"
PHASES = ("import", "kernelbench", "kgb", "kgb-warm", "kgb-off")
# kgb's runs: (phase, its folder under OUT, timing on, the baseline store started cold)
RUNS = (("kgb", "kgb-timed", True, True), ("kgb-warm", "kgb-timed-warm", True, False),
        ("kgb-off", "kgb-timing-off", False, False))
RESULT = "bench_throughput.json"


def kernels_of(variants: int, only: set[str] | None) -> list[dict]:
    """(variant, problem file, kernel file, task id) of the batch, from its manifests."""
    import tomllib

    out = []
    problems = {p.stem.lower(): p for p in (BATCH / "problems").glob("*.py")}
    for v in range(variants):
        manifest = tomllib.loads((BATCH / f"v{v}" / "manifest.toml").read_text())
        for kernel in manifest["kernels"]:
            task = kernel["task"]
            stem = task.split(".", 1)[1].removeprefix("kb_")
            if only and task not in only:
                continue
            out.append({"variant": v, "task": task, "problem": str(problems[stem]),
                        "kernel": str(BATCH / f"v{v}" / kernel["file"])})
    return out


def write_submissions(kernels: list[dict], folder: Path) -> list[Path]:
    """The kernels as kgb submissions, one per variant (a task once per submission)."""
    if folder.exists():
        shutil.rmtree(folder)
    subs = []
    for v in sorted({k["variant"] for k in kernels}):
        sub = folder / f"v{v}"
        (sub / "kernels").mkdir(parents=True)
        lines = ["[submission]", f'name = "throughput-v{v}"', 'generator = "bench_throughput"',
                 'model = "none"', 'created = "2026-11-27"', ""]
        for k in (k for k in kernels if k["variant"] == v):
            name = Path(k["kernel"]).name
            shutil.copyfile(k["kernel"], sub / "kernels" / name)
            lines += ["[[kernels]]", f'task = "{k["task"]}"', f'file = "kernels/{name}"', ""]
        (sub / "manifest.toml").write_text("\n".join(lines))
        subs.append(sub)
    return subs


def run_command(argv: list[str], env: dict | None = None, log: Path | None = None,
        timeout: float | None = None) -> tuple[float, int, str]:
    """Spawn to exit: seconds, return code (124: stopped at `timeout` with SIGTERM, which kgb
    answers by cancelling its jobs and reporting the finished ones), the output's tail."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                                env=env)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            code = 124
        sink.seek(0)
        text = sink.read()
    seconds = time.monotonic() - start
    if log is not None:
        log.write_text(text)
    return seconds, code, text[-3000:]


class Budget:
    """The seconds this call may still spend (--budget-s): a part that would run past it is
    stopped and can be resumed by the next call (--resume)."""

    def __init__(self, seconds: float | None) -> None:
        self.end = time.monotonic() + seconds if seconds else None

    def left(self, margin: float = 20.0) -> float | None:
        return None if self.end is None else max(1.0, self.end - time.monotonic() - margin)


def gpu_count() -> int:
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))
    except (OSError, subprocess.SubprocessError):
        return 0


def environment(device: str) -> dict:
    probe = ("import json, torch, triton; d = torch.cuda.is_available(); "
             "print(json.dumps({'torch': torch.__version__, 'triton': triton.__version__, "
             "'cuda': torch.version.cuda, 'gpu': torch.cuda.get_device_name(0) if d else None}))")
    _, code, text = run_command([sys.executable, "-c", probe])
    env = json.loads(text.strip().splitlines()[-1]) if code == 0 else {"error": text[-300:]}
    # The GPU machine's copy may have no .git, or an older one (run 24 said 8f3842b, dirty, of
    # a tree at 3aa7b29): KGB_COMMIT, given in the call's command, wins.
    given = os.environ.get("KGB_COMMIT")
    commit = None if given else _git("rev-parse", "--short", "HEAD")
    env.update(python=platform.python_version(), device=device, cpus=os.cpu_count(),
               kgb=given or commit or "unknown (no git; set KGB_COMMIT)",
               dirty=bool(_git("status", "--short", "kgb")) if commit else None,
               drain=os.environ.get("KGB_DRAIN") or "samples")  # the lock's drain
    if device == "cuda":
        _, _, smi = run_command(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,"
                                 "power.limit", "--format=csv,noheader"])
        env["nvidia_smi"] = smi.strip().splitlines()
    return env


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT)
    return out.stdout.strip() if out.returncode == 0 else ""


# ------------------------------------------------------------------ KernelBench's side
def kernelbench(kernels: list[dict], kb_dir: Path, gpus: int, out: Path, budget: Budget,
                before: dict | None) -> dict:
    """Its evaluator in a fresh process per kernel, one at a time per GPU. `before`: an earlier
    call's unfinished part (its finished rows are kept and its wall time added)."""
    logs = out / "kernelbench"
    logs.mkdir(parents=True, exist_ok=True)
    done = {(r["variant"], r["task"]): r for r in (before or {}).get("rows", []) if r}
    rows: list[dict] = [done.get((k["variant"], k["task"]), {}) for k in kernels]
    todo = [(i, k) for i, k in enumerate(kernels) if not rows[i]]
    lock = threading.Lock()

    def worker(gpu: int) -> None:
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu), PYTHONPATH=os.pathsep.join(
            p for p in (os.environ.get("KB_SITE", ""), os.environ.get("PYTHONPATH", "")) if p))
        while True:
            with lock:
                if not todo:
                    return
                i, k = todo.pop(0)
            seconds, code, text = run_command(
                [sys.executable, str(KIT / "side_by_side.py"), "--kernelbench", str(kb_dir),
                 "--out", str(logs), "--kb-one", k["problem"], k["kernel"]], env,
                logs / f"{i:02d}-v{k['variant']}-{k['task']}.log", timeout=budget.left(5.0))
            if code == 124:  # out of this call's time: the next call runs it again
                return
            lines = [ln for ln in text.splitlines() if ln.startswith("{")]
            result = json.loads(lines[-1]) if lines and code == 0 else {"error": text[-400:]}
            rows[i] = dict(k, wall_s=round(seconds, 2), gpu=gpu, **result)

    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(g,)) for g in range(gpus)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started + (before or {}).get("wall_s", 0.0)
    finished = [r for r in rows if r]
    return {"kernels": len(finished), "gpus": gpus, "wall_s": round(wall, 1),
            "complete": len(finished) == len(kernels), "calls": (before or {}).get("calls", 0) + 1,
            "per_gpu_hour": round(3600 * len(finished) / (wall * gpus), 1),
            "correct": sum(1 for r in finished if r.get("correctness") is True),
            "kernel_s_median": statistics.median(r["wall_s"] for r in finished)
            if finished else None, "rows": rows}


# ------------------------------------------------------------------ kgb's side
def kgb_batch(subs: list[Path], tasks: Path, out: Path, args: argparse.Namespace,
              run: tuple[str, str, bool, bool], count: int, budget: Budget,
              before: dict | None) -> dict:
    """ONE `kgb verify` of every submission (a batch), as a user would run it. `run`: one of
    RUNS. `before`: an earlier call's run stopped at its budget, which `kgb verify --resume`
    continues (its finished jobs kept, its wall time added)."""
    _, folder, timing, cold = run
    run_dir = out / folder
    resume = before is not None and not before.get("complete", True)
    argv = [sys.executable, "-m", "kgb.cli", "verify", *map(str, subs), "--tasks", str(tasks),
            "--device", args.device, "--sandbox", args.sandbox, "--out", str(run_dir),
            "--resume" if resume else "--force"]
    if args.device == "cuda":
        argv += ["--devices", ",".join(str(i) for i in range(args.gpus))]
        store = out / "baseline-cache"
        if timing and cold and not resume and args.baseline_cache is None:
            shutil.rmtree(store, ignore_errors=True)  # a run of its own starts cold
        argv += ["--baseline-cache", args.baseline_cache or str(store)]
    if not timing:
        argv += ["--timing", "off"]
    if not timing or args.device == "cpu":
        argv += ["--jobs", str(args.jobs_off)]
    elif args.jobs_timed > 1:  # several timed jobs per GPU under its timing lock
        argv += ["--jobs", str(args.jobs_timed)]
    argv += args.kgb_arg
    began = time.time()
    seconds, code, text = run_command(argv, log=out / f"{run_dir.name}.log",
                                      timeout=budget.left())
    edges = run_edges(run_dir, began, time.time())
    seconds += before.get("wall_s", 0.0) if resume and before else 0.0
    gpus = args.gpus if args.device == "cuda" else 1
    verdicts: dict[str, int] = {}
    for report in run_dir.glob("*/report.json"):
        for job in json.loads(report.read_text()).get("jobs", []):
            if job.get("verdict") != "missing":
                verdicts[job["verdict"]] = verdicts.get(job["verdict"], 0) + 1
    judged = sum(verdicts.values())
    return {"kernels": judged, "gpus": gpus, "wall_s": round(seconds, 1), "rc": code,
            "complete": code != 124 and judged == count,
            "calls": (before or {}).get("calls", 0) + 1 if resume else 1,
            "per_gpu_hour": round(3600 * judged / (seconds * gpus), 1), "verdicts": verdicts,
            "argv": argv[3:], "split": job_split(run_dir), "lock": lock_held(run_dir),
            "edges": edges, "host": host_marks(run_dir),
            "tail": text[-800:] if code else ""}


def run_edges(run_dir: Path, began: float, ended: float) -> dict:
    """The run's fixed costs, from its job folders' file times: seconds from `kgb verify`'s
    start to the first job's plan (host start-up, planning, the first sandbox), and from the
    last job's phases.json to the command's exit (reports, teardown) — what a batch of 32
    short jobs pays once."""
    plans = [f.stat().st_mtime for f in run_dir.glob("*/jobs/**/plan.json")]
    phases = [f.stat().st_mtime for f in run_dir.glob("*/jobs/**/phases.json")]
    if not plans or not phases:
        return {}
    return {"start_s": round(min(plans) - began, 2), "jobs_s": round(max(phases) - min(plans), 2),
            "tail_s": round(ended - max(phases), 2)}


def host_marks(run_dir: Path) -> dict:
    """The host's own timeline (host_timeline.json beside each member's report; the last one
    written holds every mark of the process), in seconds since `kgb verify` started: when its
    members began opening, when the last one was open, when the first worker was released and
    when the last report was written — where a batch's start-up goes."""
    newest: list = []
    for path in run_dir.glob("*/host_timeline.json"):
        try:
            marks = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(marks, list) and len(marks) > len(newest):
            newest = marks
    at: dict[str, list[float]] = {}
    for m in newest:
        if isinstance(m, dict) and isinstance(m.get("s"), (int, float)):
            at.setdefault(str(m.get("mark")), []).append(float(m["s"]))
    picks = {"first_open_s": ("open", min), "last_opened_s": ("opened", max),
             "first_worker_s": ("first worker released", min), "written_s": ("written", max)}
    return {k: fn(at[name]) for k, (name, fn) in picks.items() if name in at}


def lock_held(run_dir: Path) -> dict:
    """The timing lock's own account (timing_lock.json beside each member's report, per
    shared GPU; a batch's members share the locks, so each holds the whole run's): windows
    and seconds held by jobs and by judges — the serial part of a GPU's run."""
    paths = sorted(run_dir.glob("*/timing_lock.json")) if run_dir.is_dir() else []
    try:
        devices = json.loads(paths[0].read_text())
    except (IndexError, OSError, ValueError):
        return {}
    out = {"windows": 0, "held_s": 0.0, "judge_held_s": 0.0, "freeze_s": 0.0, "drain_s": 0.0,
           "back_to_back": 0, "back_to_back_drain_s": 0.0}
    for device in devices.values():
        out["windows"] += device.get("windows", 0)
        for kind, row in device.get("by_holder", {}).items():
            out["judge_held_s" if kind == "judge" else "held_s"] += row.get("held_s", 0.0)
            out["freeze_s"] += row.get("freeze_s", 0.0)
            out["drain_s"] += row.get("drain_s", 0.0)
        # grants that followed a release with this holder already waiting (the others kept
        # frozen since session 38), and what their drains cost
        columns = device.get("timeline_columns") or []
        rows = [dict(zip(columns, row)) for row in device.get("timeline") or []]
        for before, after in zip(rows, rows[1:]):
            if before.get("waiting_at_release"):
                out["back_to_back"] += 1
                out["back_to_back_drain_s"] += after.get("drain_s") or 0.0
    return {k: round(v, 2) for k, v in out.items()}


def job_split(run_dir: Path) -> dict:
    """Medians per job of the host's phases, and the overhead buckets of every member."""
    phases: dict[str, list[float]] = {}
    members = [m for m in run_dir.iterdir() if (m / "jobs").is_dir()] if run_dir.is_dir() else []
    for member in members:
        for path in member.glob("jobs/*/phases.json"):
            data = json.loads(path.read_text())
            for name in ("static_s", "sandbox_s", "judge_s", "grade_s", "total_s"):
                phases.setdefault(name, []).append(float(data.get(name) or 0.0))
    split: dict = {"jobs": len(phases.get("total_s", [])),
                   "host_phases_median_s": {k: round(statistics.median(v), 3)
                                            for k, v in phases.items()}}
    spec = importlib.util.spec_from_file_location("bench_overhead", HERE / "bench_overhead.py")
    if spec and spec.loader and members:
        overhead = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(overhead)
        summary = overhead.summarize(members)
        if summary.get("jobs"):
            split["buckets_median_s"] = {k: round(v["median"], 3)
                                         for k, v in summary["buckets"].items()}
            split["buckets_share"] = {k: round(v["share"], 3)
                                      for k, v in summary["buckets"].items()}
            split["steps_median_s"] = {k: round(v["median"], 3)
                                       for k, v in summary["steps"].items()}
    split["judges"] = judge_notes([run_dir, *members])
    return split


def judge_notes(folders: list[Path]) -> dict[str, int]:
    """The judge pool's own lines in judges.log (kgb/runner/judge_pool.py `_note`): judges
    started ahead, at need (none idle when a job ended), and retired, by reason."""
    counts: dict[str, int] = {}
    for log in {f / "judges.log" for f in folders if (f / "judges.log").is_file()}:
        for line in log.read_text(errors="replace").splitlines():
            if not line.startswith("kgb judges "):
                continue
            if " started " in line:
                key = "started " + line.split(" started ", 1)[1].split(" (")[0]
            elif " retired " in line:
                key = "retired: " + line.rsplit(": ", 1)[1]
            else:
                continue
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


# ------------------------------------------------------------------ the figures
def render(result: dict) -> str:
    lines = [f"device: {json.dumps(result.get('environment', {}))}"]
    imp = result.get("import")
    if imp:
        lines.append(f"kgb tasks import-kernelbench: {imp['tasks']} tasks in {imp['wall_s']} s "
                     f"(once per task, not per kernel; rc {imp['rc']})")
    kb, timed, off = result.get("kernelbench"), result.get("kgb"), result.get("kgb-off")
    warm = result.get("kgb-warm")
    lines.append(f"{'harness':28} {'kernels':>7} {'GPUs':>4} {'wall s':>8} "
                 f"{'kernels/GPU-h':>13} {'vs KernelBench':>14}  result")
    cpu = result.get("environment", {}).get("device") == "cpu"
    for name, part in (("KernelBench (evaluator)", kb),
                       ("kgb verify (CPU interpreter)" if cpu else "kgb verify (timing on)",
                        timed), ("kgb verify (store warm)", warm),
                       ("kgb verify --timing off", off)):
        if not part:
            continue
        ratio = f"{part['per_gpu_hour'] / kb['per_gpu_hour']:.2f}x" if kb and part is not kb \
            else "-"
        what = f"{part['correct']} correct" if part is kb else \
            ", ".join(f"{v} {n}" for v, n in sorted(part["verdicts"].items()))
        if not part.get("complete", True):
            what += f" (unfinished: {part['kernels']} of {result['batch']['kernels']} so far)"
        elif part.get("calls", 1) > 1:
            what += f" (over {part['calls']} calls)"
        lines.append(f"{name:28} {part['kernels']:>7} {part['gpus']:>4} {part['wall_s']:>8} "
                     f"{part['per_gpu_hour']:>13} {ratio:>14}  {what}")
    for name, part in (("timing on", timed), ("store warm", warm), ("timing off", off)):
        if part and part.get("edges"):
            e = part["edges"]
            lines.append(f"run edges ({name}): first job after {e['start_s']} s, jobs for "
                         f"{e['jobs_s']} s, {e['tail_s']} s after the last one")
        if part and part.get("host"):
            h = part["host"]
            lines.append(f"host ({name}, s since kgb started): members opened "
                         f"{h.get('first_open_s')}-{h.get('last_opened_s')}, first worker "
                         f"released {h.get('first_worker_s')}, last report "
                         f"{h.get('written_s')}")
        if part and part.get("lock"):
            lock = part["lock"]
            lines.append(f"timing lock ({name}): {lock['windows']} windows, held by jobs "
                         f"{lock['held_s']} s and judges {lock['judge_held_s']} s of the "
                         f"run's {part['wall_s']} s x {part['gpus']} GPU(s); grants cost "
                         f"{lock['freeze_s']} s freezing, {lock['drain_s']} s draining; "
                         f"{lock.get('back_to_back', 0)} grants back to back (their drains "
                         f"{lock.get('back_to_back_drain_s', 0.0)} s)")
        if part and part.get("split", {}).get("jobs"):
            split = part["split"]
            lines.append(f"kgb per job ({name}, medians of {split['jobs']} jobs): host phases "
                         + ", ".join(f"{k.removesuffix('_s')} {v}"
                                     for k, v in split["host_phases_median_s"].items()))
            if "buckets_median_s" in split:
                lines.append("  buckets s (share): " + ", ".join(
                    f"{k} {v} ({100 * split['buckets_share'][k]:.0f} %)"
                    for k, v in split["buckets_median_s"].items()))
            if split.get("judges"):
                lines.append("  judges: " + ", ".join(f"{k} {v}"
                                                      for k, v in split["judges"].items()))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--kernelbench", type=Path, help="folder holding KernelBench's "
                        "`kernelbench` package (scripts/gpu/prepare.sh: .device/kernelbench)")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--dry-run", action="store_true",
                        help="CPU only: kgb's half on the interpreter, KernelBench skipped")
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--gpus", type=int, default=0, help="GPUs to use (default: all)")
    parser.add_argument("--variants", type=int, default=4, choices=(1, 2, 3, 4))
    parser.add_argument("--tasks", help="comma-separated task ids of the batch (default: all 8)")
    parser.add_argument("--phase", default="all",
                        help="all, report, or a comma-separated list of " + ", ".join(PHASES))
    parser.add_argument("--budget-s", type=float, help="seconds this call may take: a part "
                        "still running then is stopped, and --resume in the next call goes on")
    parser.add_argument("--resume", action="store_true",
                        help="continue the parts an earlier call left unfinished")
    parser.add_argument("--jobs-off", type=int, default=1,
                        help="--jobs of the --timing off run (jobs per GPU), and of a CPU run")
    parser.add_argument("--jobs-timed", type=int, default=1,
                        help="--jobs of the timed GPU run: jobs per GPU sharing its timing lock "
                        "(docs/timing.md, 'Several jobs per GPU')")
    parser.add_argument("--baseline-cache", help="kgb's baseline store for the timed run "
                        "(default: a fresh one in OUT, so the run starts cold)")
    parser.add_argument("--kgb-arg", action="append", default=[],
                        help="passed on to both kgb verify runs, e.g. --kgb-arg=--limit=output=48g")
    args = parser.parse_args()
    if args.dry_run:
        args.device = "cpu"
    if args.device == "cuda" and args.gpus <= 0:
        args.gpus = max(1, gpu_count())
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / RESULT
    result = json.loads(path.read_text()) if path.exists() else {}
    if args.phase == "report":
        print(render(result))
        return 0
    only = set(args.tasks.split(",")) if args.tasks else None
    kernels = kernels_of(args.variants, only)
    if not kernels:
        print("no kernel chosen (see --tasks and --variants)")
        return 2
    result["environment"] = environment(args.device)
    result["batch"] = {"kernels": len(kernels), "tasks": sorted({k["task"] for k in kernels}),
                       "variants": args.variants}
    phases = PHASES if args.phase == "all" else tuple(args.phase.split(","))
    if set(phases) - set(PHASES):
        print(f"--phase {args.phase}: give all, report or some of {', '.join(PHASES)}")
        return 2
    budget = Budget(args.budget_s)
    tasks = args.out / "tasks"
    if ("import" in phases and not (args.resume and tasks.is_dir())) or not tasks.is_dir():
        problems = args.out / "problems"
        shutil.rmtree(problems, ignore_errors=True)
        problems.mkdir()
        for p in sorted({k["problem"] for k in kernels}):
            shutil.copyfile(p, problems / Path(p).name)
        shutil.rmtree(tasks, ignore_errors=True)
        seconds, code, text = run_command([sys.executable, "-m", "kgb.cli", "tasks",
                                           "import-kernelbench", str(problems), "--out",
                                           str(tasks)], log=args.out / "import.log")
        result["import"] = {"tasks": len(list(problems.glob("*.py"))), "wall_s": round(seconds, 1),
                            "rc": code}
        if code != 0:
            print(text)
            return 1
    subs = write_submissions(kernels, args.out / "submissions")
    if "kernelbench" in phases and args.device == "cuda":
        if args.kernelbench is None:
            print("--kernelbench DIR is needed on the GPU (or --dry-run)")
            return 2
        before = result.get("kernelbench") if args.resume else None
        if not (before or {}).get("complete"):
            result["kernelbench"] = kernelbench(kernels, args.kernelbench.resolve(), args.gpus,
                                                args.out, budget, before)
        path.write_text(json.dumps(result, indent=1))
    for kgb_run in RUNS:
        phase, _, timing, _ = kgb_run
        before = result.get(phase) if args.resume else None
        if phase in phases and (timing or args.device == "cuda") and \
                not (before or {}).get("complete"):
            result[phase] = kgb_batch(subs, tasks, args.out, args, kgb_run, len(kernels),
                                      budget, before)
        path.write_text(json.dumps(result, indent=1))
    path.write_text(json.dumps(result, indent=1))
    print(render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
