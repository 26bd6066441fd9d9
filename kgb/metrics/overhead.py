"""Where one job's time went: kgb's own cost, per step, from the files a job folder keeps.

A pure function of the host's phases.json, the sandbox's exec.json (the supervisor's stage marks
and compile credit), the worker's result.json (each call's wall time, by kind) and the judge's
judge.json (its own laps). Every figure is a performance record: the worker's numbers come from
the candidate's process and could be forged, which only misstates that candidate's own cost;
nothing here feeds a verdict (docs/performance.md)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from kgb import protocol as P
from kgb.bench.channel import STAGE_MARK

# What each row is counted as, in the terms users compare harnesses by.
SANDBOX, CUDA, COMPILE, CORRECTNESS = "sandbox", "cuda start", "compile/autotune", "correctness"
ANTICHEAT, TIMING, BASELINES, HOST = "anti-cheat", "timing", "baselines", "host"
BUCKETS = (SANDBOX, CUDA, COMPILE, CORRECTNESS, ANTICHEAT, TIMING, BASELINES, HOST)


@dataclass(frozen=True)
class Step:
    name: str
    bucket: str
    seconds: float


@dataclass(frozen=True)
class JobOverhead:
    steps: tuple[Step, ...]
    total_s: float  # the job on the host's clock, folder creation to verdict
    kernel_ms: float | None  # the kernel's median device time per call, summed over timed cases

    def bucket(self, name: str) -> float:
        return sum(s.seconds for s in self.steps if s.bucket == name)


def _stage_times(execution: P.ExecRecord) -> dict[str, float]:
    return {m.label.removeprefix(STAGE_MARK): m.t for m in execution.marks
            if m.label.startswith(STAGE_MARK)}


def _worker_steps(execution: P.ExecRecord, worker: P.WorkerResult | None) -> list[Step]:
    """The sandbox's run split by the worker's stage marks (on the supervisor's clock)."""
    life = execution.worker_s if execution.worker_s is not None else execution.wall_s
    steps = [Step("sandbox start and teardown", SANDBOX, max(0.0, execution.wall_s - life))]
    stages = _stage_times(execution)
    order = ["runtime", "device", "import", "cases", "timing", "done"]
    seen = [s for s in order if s in stages]
    if not seen:  # no channel, or the worker died before its first mark
        return steps + [Step("worker (no stage marks)", SANDBOX, life)]
    edges = [(0.0, "start")] + [(stages[s], s) for s in seen] + [(life, "exit")]
    spans = {edges[i][1]: max(0.0, edges[i + 1][0] - edges[i][0]) for i in range(len(edges) - 1)}
    names = {"start": ("Python, torch and triton imports", SANDBOX),
             "runtime": ("CUDA context", CUDA), "device": ("worker setup", SANDBOX),
             "import": ("candidate import", CORRECTNESS), "timing": ("timing loop", TIMING),
             "done": ("worker exit", SANDBOX)}
    for stage, seconds in spans.items():
        if stage == "cases":
            steps += _case_steps(seconds, execution.compile_s or 0.0, worker)
        else:
            name, bucket = names[stage]
            steps.append(Step(name, bucket, seconds))
    return steps


def _case_steps(seconds: float, compile_s: float, worker: P.WorkerResult | None) -> list[Step]:
    """The cases stage: compiling, the primary calls, the layer-2/3 calls, the rest."""
    calls = [c for case in (worker.cases if worker else ()) for c in case.calls]
    primary = sum(c.wall_s or 0.0 for c in calls if c.kind == P.CallKind.PRIMARY)
    checks = sum(c.wall_s or 0.0 for c in calls if c.kind != P.CallKind.PRIMARY)
    # The threat-13 re-reads overlap the next calls; the worker times what they and the one
    # sleep for what is left of the wait cost (None, an older worker: not told, left in `rest`).
    waits = max(0.0, worker.late_check_s or 0.0) if worker is not None else 0.0
    compile_s = min(compile_s, seconds)
    primary = max(0.0, primary - compile_s)  # the first calls compile; that is counted apart
    rest = max(0.0, seconds - compile_s - primary - checks - waits)
    return [Step("compile and autotune", COMPILE, compile_s),
            Step("primary calls", CORRECTNESS, primary),
            Step("anti-caching, determinism, ghost calls", ANTICHEAT, checks),
            Step("deferred-write waits", ANTICHEAT, waits),
            Step("inputs, clones, saving outputs", CORRECTNESS, rest)]


_JUDGE_STEPS = {"load": ("judge: task modules", HOST),
                "cases:primary": ("judge: references and comparison", CORRECTNESS),
                "cases:checks": ("judge: layer-2/3 calls", ANTICHEAT),
                "cases:other": ("judge: case bookkeeping", CORRECTNESS),
                "recheck": ("judge: timed outputs re-checked", ANTICHEAT),
                "baselines": ("judge: eager and torch.compile baselines", BASELINES)}


def job_overhead(host: P.HostPhases, execution: P.ExecRecord | None,
                 worker: P.WorkerResult | None, judge: P.JudgeResult | None) -> JobOverhead:
    steps = [Step("layer 1 and code metrics", ANTICHEAT, host.static_s)]
    if execution is not None:
        steps += _worker_steps(execution, worker)
    judged = 0.0
    for phase in judge.phases if judge else ():
        name, bucket = _JUDGE_STEPS.get(phase.name, (f"judge: {phase.name}", HOST))
        steps.append(Step(name, bucket, phase.seconds))
        judged += phase.seconds
    if host.judge_s:
        waited = max(0.0, host.judge_s - judged)
        steps.append(Step("judge: start, queue and transfer", HOST, waited))
    steps.append(Step("grading", HOST, host.grade_s))
    counted = sum(s.seconds for s in steps)
    steps.append(Step("host: plan, files, GPU snapshots", HOST, max(0.0, host.total_s - counted)))
    timed = worker.timed if worker else ()
    kernel_ms = sum(statistics.median(t.times_ms) for t in timed if t.times_ms) if timed \
        else None
    return JobOverhead(tuple(steps), host.total_s, kernel_ms)
