"""`kgb verify`: load, plan, run every job, write the report. A failing kernel ends its own job
with a verdict; only kgb's own failures (exit 3) or bad input (exit 2) end the run, and even
then the jobs already finished are written to report.json first."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import psutil

from kgb.errors import BadInput, InfraError, Interrupted
from kgb.jsonfiles import write_json_atomic
from kgb.protocol import JobRecord
from kgb.report.files import write_human_reports
from kgb.report.json_report import build_report, cost_for, job_entry, run_header, write_report
from kgb.runner import journal
from kgb.runner.execute import JobContext
from kgb.runner.gpu_share import Shares
from kgb.runner.host_clock import mark, write_timeline
from kgb.runner.host_gpus import gpu_count, gpu_name
from kgb.runner.judge_pool import JudgePool
from kgb.runner.missing import missing_entry
from kgb.runner.plan import Job, plan_jobs
from kgb.runner.run_memo import RunMemo
from kgb.runner.schedule import ScheduleOutcome
from kgb.runner.shards import MODES as SHARD_MODES
from kgb.runner.shards import run_sharded
from kgb.sandbox.base import Limits, Sandbox, create_sandbox, ram_output_cap
from kgb.sandbox.overrides import apply_overrides, field_name
from kgb.submission import load_submission
from kgb.tasks.index import SuiteIndex, index_suite
from kgb.tasks.spec import unknown_task

DEFAULT_TIMEOUT_S = {"cpu": 600.0, "cuda": 300.0}


@dataclass(frozen=True)
class VerifyOptions:
    submission: Path
    tasks_dir: Path
    out_dir: Path
    device: str = "auto"
    sandbox: str = "auto"
    timeout_s: float | None = None
    seed: int | None = None
    only: tuple[str, ...] | None = None
    pricing: Path | None = None
    limits: tuple[str, ...] = ()  # KEY=VALUE overrides of the sandbox Limits
    resume: bool = False  # reuse the finished jobs of the run already in out_dir
    devices: str | None = None  # GPU indices ("0,1") or "all": one job per GPU at a time
    jobs: int = 1  # jobs at once: CPU interpreter slots, or per GPU with timing off
    static: bool = True  # research option: False runs layers 2 and 3 alone (--static off)
    timing: bool = True  # GPU runs: time the kernels (--timing off: correctness only)
    baselines: str = "all"  # all (PyTorch eager and torch.compile), eager, none
    cuda_graph: bool = False  # GPU runs: timed calls (kernel and baselines) as graph replays
    force: bool = False  # replace a run already in out_dir
    only_submitted: bool = False  # without `only`: just the tasks the submission has kernels for
    refcache: Path | None = None  # reference outputs shared with other runs (a batch's)
    ray: str | None = None  # --ray ADDRESS: jobs on a Ray cluster's actors (kgb.placement)
    # --warm: each slot prepares its next job while the current one runs (None: warm_pays)
    warm: bool | None = None
    # --baseline-cache: the trusted store of baseline timings; None: the default folder
    # (kgb.runner.baseline_cache.default_root), "off", or a folder
    baseline_cache: str | None = None
    # --shard-cases: "auto" splits a job's cases over slots that would otherwise sit idle
    # (kgb.runner.shards); "off" runs every task as one job
    shard_cases: str = "auto"


def _mode_suffix(options: VerifyOptions) -> str:
    """The options that change verdicts or figures, in the journal's identity of a run (a
    --resume with other ones is refused)."""
    return (("" if options.static else "+static-off") + ("" if options.timing else "+timing-off")
            + ("" if options.baselines == "all" else f"+baselines-{options.baselines}")
            + ("+cuda-graph" if options.cuda_graph else ""))


def warm_pays(device: str, slots: tuple[str, ...]) -> bool:
    """Whether preparing each slot's next job ahead saves time: on a GPU (the jobs wait on the
    device, the host's CPUs are idle), or where there are at least two CPUs per slot. Interpreter
    jobs on a machine they already fill gain nothing and compete with the held imports (the
    16-kernel demo on 2 cores, --jobs 2: 136 s warm, 108 s cold)."""
    return device != "cpu" or (os.cpu_count() or 1) >= 2 * len(slots)


def resolve_device(requested: str) -> str:
    if requested == "cpu" or (requested == "auto" and not gpu_device_nodes()):
        return "cpu"
    # cuda:N must name the same GPU for torch here, for the judge and for the sandbox's device
    # binding (which goes by PCI bus order).
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    if gpu_count():
        return "cuda:0"
    if requested == "cuda":
        raise BadInput("--device cuda: no CUDA device is visible; use --device cpu or auto")
    return "cpu"


# Device nodes some GPU driver creates (NVIDIA, AMD's ROCm, WSL's GPU bridge): with none of
# them, `--device auto` is the CPU without importing torch (seconds) to ask.
GPU_DEVICE_NODES = ("/dev/nvidiactl", "/dev/kfd", "/dev/dxg")


def gpu_device_nodes() -> list[str]:
    return [node for node in GPU_DEVICE_NODES if os.path.exists(node)]


def likely_gpu(options: VerifyOptions) -> str | None:
    """The GPU the run's first job will most likely use, guessed from the device nodes and
    --devices before torch is imported (seconds): a judge for it starts while the host
    imports torch and plans. None: a CPU run, a Ray run, or no GPU driver here."""
    if options.ray is not None or options.device == "cpu" or not gpu_device_nodes():
        return None
    first = (options.devices or "").split(",")[0].strip()
    if first in ("", "all"):
        return "cuda:0"
    return f"cuda:{first}" if first.isdigit() else None


def prestart_judge(judges: JudgePool, options: VerifyOptions) -> None:
    """Start the likely first GPU's judge now; with both baselines timed it imports
    torch.compile's parts before its first request (its compile ahead, kgb.runner.execute)."""
    judges.compiles = options.timing and options.baselines == "all"
    device = likely_gpu(options)
    if device is not None:
        judges.prestart(device)


def resolve_slots(device: str, devices: str | None, jobs: int,
                  timing: bool = True) -> tuple[str, ...]:
    """The devices jobs run on at once: `--jobs N` interpreter slots on the CPU, one slot per
    GPU of `--devices` (default: the first GPU) on CUDA — or N per GPU: with `--timing off`
    (correctness alone is not disturbed by another job's kernels on the same GPU), or timed,
    each timed window under the GPU's exclusive timing lock with the other jobs frozen
    (kgb/runner/gpu_share.py, docs/timing.md)."""
    if jobs < 1:
        raise BadInput(f"--jobs {jobs}: give 1 or more")
    if device == "cpu":
        if devices is not None:
            raise BadInput("--devices applies to GPU runs; on the CPU use --jobs N")
        return ("cpu",) * jobs
    return tuple(slot for _ in range(jobs) for slot in _gpu_slots(devices))


def _gpu_slots(devices: str | None) -> tuple[str, ...]:
    count = gpu_count()
    if devices is None:
        return ("cuda:0",)
    if devices.strip() == "all":
        return tuple(f"cuda:{i}" for i in range(count))
    try:
        indices = [int(part) for part in devices.split(",") if part.strip()]
    except ValueError:
        raise BadInput(f"--devices {devices}: give GPU indices like 0,1 or 'all'") from None
    bad = [i for i in indices if not 0 <= i < count]
    if bad or not indices or len(set(indices)) != len(indices):
        raise BadInput(f"--devices {devices}: this machine has GPUs 0..{count - 1}; give each "
                       f"index once, like 0,1, or 'all'")
    return tuple(f"cuda:{i}" for i in indices)


def fit_output_to_ram(limits: Limits, sandbox: Sandbox, jobs: int,
                      overrides: tuple[str, ...]) -> Limits:
    """Where the output folder is uncounted RAM, the default cap shrinks to what the machine
    can hold for `jobs` at once (kgb.sandbox.base.ram_output_cap); an explicit
    `--limit output=` is the user's to choose."""
    if not sandbox.output_in_ram or "output_bytes" in map(field_name, overrides):
        return limits
    cap = ram_output_cap(psutil.virtual_memory().total, jobs)
    return replace(limits, output_bytes=cap) if limits.output_bytes > cap else limits


def again_limits(base: Limits, limits: Limits, sandbox: Sandbox, slots: tuple[str, ...],
                 overrides: tuple[str, ...]) -> tuple[Limits | None, Limits | None]:
    """The run's `limits` for a job that runs again (kgb.runner.schedule), from the `base`
    before the output cap was fitted to the run's slots: (roomier, spread). roomier: the cap of
    a run of one job, truly alone; spread: the cap of a run of one job per device, the pass
    that runs again one job per device at a time. None: no larger cap than the one before
    (one slot, one device, or --limit output= given), so the verdict does not depend on
    --jobs."""
    alone = fit_output_to_ram(base, sandbox, 1, overrides).output_bytes
    spread = fit_output_to_ram(base, sandbox, len(set(slots)), overrides).output_bytes
    return (replace(limits, output_bytes=alone) if alone > limits.output_bytes else None,
            replace(limits, output_bytes=spread) if alone > spread > limits.output_bytes
            else None)


def cpus_given(overrides: tuple[str, ...]) -> bool:
    """Whether the user set the CPU share (`--limit cpus=`): then nothing fits it."""
    return "cpus" in map(field_name, overrides)


def fit_cpus_to_gpu_slots(limits: Limits, slots: tuple[str, ...], overrides: tuple[str, ...],
                          cpu_count: int | None) -> Limits:
    """On GPU runs the default CPU share of a job grows to the host's cores over its slots:
    an autotuned kernel's configs compile on that many threads (kgb/worker/precompile.py;
    ptxas is CPU-bound), and a 16-core host with one GPU left 14 cores idle at the default 2.
    An explicit `--limit cpus=` is the user's to choose; interpreter runs keep the default
    (their jobs already fill the cores)."""
    if slots[0] == "cpu" or cpus_given(overrides) or not cpu_count:
        return limits
    return replace(limits, cpus=max(limits.cpus, float(cpu_count // len(slots))))


def _check_graph_option(options: VerifyOptions, device: str) -> None:
    if options.cuda_graph and (device == "cpu" or not options.timing):
        raise BadInput("--cuda-graph times GPU runs: use it with --device cuda and timing on")


def device_identity(slots: tuple[str, ...]) -> str:
    """What a resumed run must match: the CPU, or the GPU model (not how many were used)."""
    if slots[0] == "cpu":
        return "cpu"
    return "cuda:" + gpu_name(int(slots[0].split(":")[1]))


def device_peaks(slots: tuple[str, ...]) -> tuple | None:
    """(roofline-floor peaks, efficiency peaks) of the run's GPU model, or None on the CPU."""
    if slots[0] == "cpu":
        return None
    from kgb.bench.hw import efficiency_peaks, floor_peaks

    name = gpu_name(int(slots[0].split(":")[1]))
    return floor_peaks(name), efficiency_peaks(name)


def run_verify(options: VerifyOptions, as_json: bool = False, feedback: bool = False,
               quiet: bool = False, placement=None) -> dict:
    """The whole run; prints the table (or JSON) unless `quiet` (the Python API). With
    `options.ray` the jobs run on a Ray cluster's actors: through `placement` (a connected
    kgb.placement.ray_host.RayPlacement, a batch's) or a connection of this run's own."""
    if options.ray is None or placement is not None:
        return _run_verify(options, as_json, feedback, quiet, placement)
    if options.devices is not None:
        raise BadInput("--devices picks this machine's GPUs; with --ray every GPU of the "
                       "cluster is a slot (--jobs N: N at once on each GPU)")
    from kgb.placement.ray_host import RayPlacement

    with RayPlacement(options.ray, options.device, options.jobs, options.timing,
                      cpus_given(options.limits)) as own:
        return _run_verify(options, as_json, feedback, quiet, own)


def _run_verify(options: VerifyOptions, as_json: bool, feedback: bool, quiet: bool,
                placement) -> dict:
    from kgb.report.terminal import JobProgress

    # Everything that holds processes or resources is closed by one ExitStack, whatever fails.
    with contextlib.ExitStack() as stack:
        run = open_run(options, stack, placement)
        stack.enter_context(_stop_signals_interrupt())
        if placement is not None:  # its actors start, on the run's files, shipped once
            stack.callback(placement.release)
            placement.open(run.ctx, run.jobs)
        progress = stack.enter_context(JobProgress(len(run.jobs), quiet=as_json or quiet))
        outcome = run_sharded([(job, run.ctx) for job in run.jobs], run.slots, run.ctx.cancel,
                              progress, lambda work: run.reuse(work[0]), placement,
                              options.shard_cases)
        mark("jobs ended")
        header = run.header()
    mark("closed")  # judges, sandboxes and locks released
    return close_run(run, header, outcome, as_json, feedback, quiet)


@dataclass
class OpenRun:
    """One submission's run between planning and its report: its jobs, where they run, and
    the context they share (a batch holds one per member and schedules all their jobs on one
    board, kgb.runner.schedule.run_works)."""

    options: VerifyOptions
    out_dir: Path
    index: SuiteIndex
    submission: Any
    scope: list[str]
    jobs: list[Job]
    missing: list[str]
    slots: tuple[str, ...]
    seed: int
    record: journal.RunRecord
    resumed: bool
    sandbox: Sandbox
    limits: Limits
    ctx: JobContext
    cache: Any
    cache_state: str
    placement: Any

    def reuse(self, job: Job) -> JobRecord | None:
        """The journaled record of a job a resumed run already finished."""
        return journal.finished(self.out_dir / "jobs" / job.folder) if self.resumed else None

    def header(self) -> dict:
        options = self.options
        header = run_header(seed=self.seed, devices=self.slots, sandbox=self.sandbox,
                            submission=self.submission, limits=self.limits,
                            static=options.static, timing=options.timing,
                            cuda_graph=options.cuda_graph, baselines=options.baselines)
        header["environment"]["baseline_cache"] = self.cache.describe() \
            if self.cache is not None else {"dir": None, "state": self.cache_state}
        return header


def open_run(options: VerifyOptions, stack: contextlib.ExitStack, placement,
             judges: JudgePool | None = None, cancel: threading.Event | None = None,
             sandbox: Sandbox | None = None, shares: Shares | None = None,
             tenants: Path | None = None, memo: RunMemo | None = None,
             index: SuiteIndex | None = None) -> OpenRun:
    """Load, check and plan one submission and open what its jobs share (sandbox backend,
    judges, baseline store) on `stack`; BadInput before anything is opened for a bad one.
    `judges`, `cancel`, `sandbox`, `shares` (the GPUs' timing locks), `memo` (what jobs
    measure for each other) and `index` (the suite's, read once): a batch's, shared by its
    members, whose job folders are all under `tenants`."""
    mark("open")
    _check_graph_option(options, options.device)
    if options.shard_cases not in SHARD_MODES:
        raise BadInput(f"--shard-cases {options.shard_cases}: give one of "
                       f"{', '.join(SHARD_MODES)}")
    index = index if index is not None else index_suite(options.tasks_dir)
    out_dir = options.out_dir.resolve()
    refuse_other_run(out_dir, options)
    before = journal.read_record(out_dir) if options.resume else None
    out_dir.mkdir(parents=True, exist_ok=True)
    if judges is None and tenants is None and placement is None:
        judges = stack.enter_context(JudgePool(options.refcache or out_dir / "refcache",
                                               out_dir / "judges.log"))
        prestart_judge(judges, options)  # its start-up beside the host's
    submission = load_submission(options.submission, out_dir / "submission")
    unknown = [k.task for k in submission.kernels if k.task not in index]
    if unknown:
        raise BadInput(unknown_task(unknown[0], index.ids(), "manifest names unknown task id"))
    if options.only:
        bad = [t for t in options.only if t not in index]
        if bad:
            raise BadInput(unknown_task(bad[0], index.ids(), "--only names unknown task id"))
    if options.pricing is not None and not options.pricing.is_file():
        raise BadInput(f"--pricing {options.pricing}: no such file")
    device = placement.device if placement else resolve_device(options.device)
    mark("device resolved")
    _check_graph_option(options, device)  # again: --device auto may have found no GPU
    slots = placement.slots if placement else resolve_slots(device, options.devices,
                                                            options.jobs, options.timing)
    if judges is not None:
        judges.keep_devices(set(slots))  # a judge started for a GPU the run does not use
    if before and options.seed is not None and options.seed != before.seed:
        raise BadInput(f"--resume with --seed {options.seed}: the run in {out_dir} used seed "
                       f"{before.seed}; drop --seed or use a new --out")
    seed = before.seed if before else (
        options.seed if options.seed is not None else secrets.randbits(63))
    kind = "cpu" if device == "cpu" else "cuda"
    limits = apply_overrides(Limits(wall_time_s=options.timeout_s or DEFAULT_TIMEOUT_S[kind]),
                             options.limits)
    scope = run_scope(index, submission, options)
    submitted = {k.task for k in submission.kernels}
    job_ids = [t for t in scope if t in submitted]
    # Only submitted tasks are loaded and planned; the others are rows (kgb.runner.missing).
    jobs = plan_jobs({t: index.load(t) for t in job_ids}, submission, device, seed,
                     tuple(job_ids))
    missing = [t for t in scope if t not in submitted]
    mark("planned")

    if sandbox is None:
        sandbox = stack.enter_context(create_sandbox(options.sandbox))
    fitted = fit_output_to_ram(limits, sandbox, len(slots), options.limits)
    if not getattr(placement, "fits_cpus", False):  # Ray's actors fit it on their own nodes
        fitted = fit_cpus_to_gpu_slots(fitted, slots, options.limits, os.cpu_count())
    roomier, spread = again_limits(limits, fitted, sandbox, slots, options.limits)
    limits = fitted
    identity = placement.identity if placement else device_identity(slots)
    record = journal.RunRecord(seed, identity, sandbox.name + _mode_suffix(options),
                               journal.plan_digest(jobs, identity, sandbox.name, limits,
                                                   missing))
    if before and before != record:
        raise journal.resume_mismatch(out_dir)
    if not before:  # job folders of an earlier run in OUT must never pass for this run's
        shutil.rmtree(out_dir / "jobs", ignore_errors=True)
    journal.write_record(out_dir, record)
    if judges is None:  # a batch member's, or a Ray run's: the host's judges start here
        judges = stack.enter_context(JudgePool(options.refcache or out_dir / "refcache",
                                               out_dir / "judges.log"))
    judges.compiles = device != "cpu" and options.timing and options.baselines == "all"
    # Ray's jobs run on other hosts, whose GPUs and files this host's store does not know
    cache, cache_state = _baseline_cache(options, slots, sandbox, submission.root, out_dir) \
        if placement is None else (None, "off under --ray")
    ctx = JobContext(secrets.token_hex(4), out_dir, sandbox, limits, submission.root, judges,
                     cancel=cancel if cancel is not None else threading.Event(),
                     static=options.static,
                     peaks=None if placement else device_peaks(slots),  # Ray: the actor's
                     timing=options.timing, baselines=options.baselines,
                     cuda_graph=options.cuda_graph, baseline_cache=cache,
                     warm=warm_pays(device, slots) if options.warm is None
                     else options.warm,
                     shares=shares if shares is not None else Shares.for_slots(
                         slots, ahead=options.baselines == "all")
                     if options.timing and placement is None else Shares(),
                     tenants=tenants, memo=memo if memo is not None else RunMemo(),
                     roomier=roomier if placement is None else None,
                     spread=spread if placement is None else None)
    mark("opened")
    return OpenRun(options, out_dir, index, submission, scope, jobs, missing, slots, seed,
                   record, before is not None, sandbox, limits, ctx, cache, cache_state,
                   placement)


def close_run(run: OpenRun, header: dict, outcome: ScheduleOutcome, as_json: bool = False,
              feedback: bool = False, quiet: bool = True) -> dict:
    """The run's report from its finished jobs (written even when the run stopped early);
    Interrupted or InfraError after writing it when the run did not complete."""
    from kgb.report.terminal import print_report

    options, out_dir, slots = run.options, run.out_dir, run.slots
    rows = {job.task.id: job_entry(journal.read_plan(out_dir / "jobs" / job.task.id),
                                   record) for job, record in outcome.results}
    rows.update((t, missing_entry(t, run.index.entry(t).category, slots[0]))
                for t in run.missing)
    entries = [rows[t] for t in run.scope if t in rows]  # plan order; unfinished have none
    report = build_report(header, entries, complete=outcome.failure is None and
                          outcome.interrupted is None,
                          cost=cost_for(run.submission.token_log, options.pricing,
                                        header["manifest"], entries))
    if run.placement is not None:
        report["ray"] = run.placement.summary(run.ctx.run_id)
    if options.pricing is not None and run.submission.token_log is None:
        report["warnings"] = report.get("warnings", []) + [
            f"--pricing {options.pricing} was given but the submission has no tokens.jsonl, so "
            "there is no cost section (the token log format: docs/submission.md)"]
    write_report(report, out_dir)
    if run.ctx.shares.by_device or run.ctx.shares.lone:  # what the locks cost (timing.md)
        write_json_atomic(out_dir / "timing_lock.json", run.ctx.shares.summary())
    write_human_reports(report, out_dir)  # report.md, report.html (~0.5 s, matplotlib's import)
    write_timeline(out_dir)
    partial = f"partial report in {out_dir / 'report.json'}"
    if outcome.interrupted is not None:
        raise Interrupted(f"interrupted by {outcome.interrupted} after {len(outcome.results)} "
                          f"of {len(run.jobs)} jobs; {partial}")
    if outcome.failure is not None:
        raise InfraError(f"{outcome.failure.message} ({partial})")
    if not quiet:
        print_report(report, as_json=as_json, out_dir=out_dir, feedback=feedback)
    return report


def _baseline_cache(options: VerifyOptions, slots: tuple[str, ...], sandbox: Sandbox,
                    submission_root: Path, out_dir: Path):
    """The run's trusted baseline store (kgb.runner.baseline_cache), or None and why not. It
    must lie outside every path the sandbox shows a candidate."""
    from kgb.runner.baseline_cache import open_cache
    from kgb.runner.execute import runtime_paths

    return open_cache(options.baseline_cache, slots, sandbox.isolation, options.timing,
                      options.baselines,
                      runtime_paths() + (submission_root, out_dir, Path("/usr"), Path("/etc")))


def run_scope(index: SuiteIndex, submission, options: VerifyOptions) -> list[str]:
    """The tasks the report has a row for, in order: --only's, else the submission's alone
    (`only_submitted`), else the whole suite's."""
    if options.only:
        return list(options.only)
    if options.only_submitted:
        return list(dict.fromkeys(k.task for k in submission.kernels))
    return list(index.ids())


def refuse_other_run(out_dir: Path, options: VerifyOptions) -> None:
    """A folder holding another run is not silently replaced: --resume continues it, --force
    replaces it."""
    if options.resume or options.force or not out_dir.is_dir():
        return
    for name in ("report.json", journal.RUN_FILE):
        if (out_dir / name).exists():
            raise BadInput(f"--out {out_dir} already holds a run ({name}); pass --force to "
                           f"replace it, --resume to continue it, or another --out")


@contextlib.contextmanager
def _stop_signals_interrupt():
    """SIGTERM and SIGHUP end the run like Ctrl-C: the jobs in flight are cancelled (process
    trees killed, containers removed, see kgb.runner.schedule) and the finished jobs are
    reported, instead of the interpreter dying with sandboxes still running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
