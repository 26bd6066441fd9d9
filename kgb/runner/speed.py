"""From a job's timing evidence to its timing figures and layer-3 verdicts (trusted side).

The worker's CUDA-event times are evidence from the candidate's process; they stand only when
what the candidate cannot touch agrees with them:

- the supervisor's clock: the wall time of each timing loop, minus what the same loop costs
  with no work in it (measured by the trusted judge on the same GPU), must be explained by the
  events — otherwise work ran outside them (another stream, a thread) or they were forged (D304);
- the profiler's device time (all streams) may not exceed the events' (D304), and the kernels it
  saw while timing must be those it saw while checking (D306);
- the outputs the supervisor chose after the fingerprints were committed must be right (D308)
  and be the committed ones (D309) — the judge checked them;
- the median may not beat the hardware: max(FLOPs / peak, bytes / bandwidth) (D307);
- on a GPU several jobs share (--jobs N with timing on), a case's timing loop must lie inside
  one exclusive window of the GPU's timing lock, as its supervisor granted it (the others
  frozen, the GPU drained): outside one, or in a window that was shared or revoked, its
  speedup does not count, named — never a verdict (kgb/runner/gpu_share.py).

A check that cannot run (no supervisor channel, no profiler, unknown hardware) is named in the
facts and the job's speed is not reported as verified."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from kgb import protocol as P
from kgb.anticheat import runtime_rules as RR
from kgb.anticheat.registry import Rule

WINDOW_SLACK_MS = 50.0  # scheduling noise per loop
WINDOW_SLACK_PER_CALL_MS = 0.5  # per timed call
WINDOW_FACTOR = 1.5  # the events may explain up to this much more than they measured
PROFILER_FACTOR = 1.5
PROFILER_SLACK_MS = 0.02


@dataclass(frozen=True)
class SpeedResult:
    cases: tuple[P.CaseTiming, ...]
    violation: tuple[Rule, str] | None
    unchecked: tuple[str, ...]  # checks that could not run, with why
    # False: a timed case's re-checks are missing, or the kernels it ran could not be compared
    # with those checked (D306 blind), so no speedup counts
    counted: bool = True


def judge_speed(plan: P.PlanRecord, execution: P.ExecRecord | None, worker: P.WorkerResult,
                judge: P.JudgeResult | None, conditions: P.Conditions | None = None
                ) -> SpeedResult:
    """`conditions`: the GPU's state around the job, read by the host. On a GPU that
    throttled no speedup counts; beside other processes on it (kgb.bench.neighbours), whose
    work stretches the supervisor's clock and not the events, a window the events do not
    explain is named, not ruled on, and no speedup counts either."""
    neighbours = conditions.neighbours if conditions else ()
    specs = {c.id: c for c in plan.cases}
    claims = {c.id: c for c in worker.cases}
    baselines = {b.case: b for b in (judge.baselines if judge else ())}
    checks: dict[str, list[P.TimedCheck]] = {}
    for check in (judge.timed_checks if judge else ()):
        checks.setdefault(check.case, []).append(check)
    unchecked: list[str] = []
    if execution is None or not execution.channel:
        unchecked.append("no supervisor channel: timing windows and re-check choices missing")
    if plan.floor_peaks is None:
        unchecked.append("no peaks known for this device: roofline floor not checked")
    violation: tuple[Rule, str] | None = None
    out = []
    starved = False  # a window stretched by the worker's wait for a CPU (named, not ruled on)
    blind: list[str] = []  # timed cases whose profiled checking call shows no kernel names
    for timed in worker.timed:
        spec = specs.get(timed.case)
        if spec is None or not timed.times_ms:
            continue
        baseline = baselines.get(timed.case)
        timing = _case_timing(plan, spec, timed, baseline, execution)
        out.append(timing)
        checked = checked_kernels(spec, claims.get(timed.case))
        if not checked and timed.profiler_ms is not None:
            blind.append(timed.case)
        over = _excess(timed, execution, baseline)
        excess = over[1] if over is not None else None
        waited = _cpu_wait_ms(timed, execution) if over is not None else None
        if excess is not None and _undrained(timed, execution):  # as beside a neighbour
            unchecked.append(f"{timed.case}: {excess}, in a timing window the GPU had not "
                             "drained for: the window check is no evidence")
            excess = None
        if excess is not None and neighbours:
            unchecked.append(f"{timed.case}: {excess}, while other processes used this GPU "
                             f"({', '.join(neighbours[:3])}): the window check is no evidence")
            excess = None
        if excess is not None and over is not None and waited is not None \
                and waited >= over[0]:  # the host's other work held the worker's CPU
            unchecked.append(f"{timed.case}: {excess}, of which the worker waited {waited:.1f} "
                             "ms for a CPU (the host was busy): the window check is no "
                             "evidence, no speedup counts")
            starved, excess = True, None
        found = (_rechecked(timed, checks.get(timed.case, []), execution)
                 or _window(timed, execution, baseline)
                 or ((RR.WORK_OUTSIDE_TIMED_WINDOW, excess) if excess else None)
                 or _profiler(timed)
                 or _kernels(timed, checked)
                 or _floor(timing))
        if found is not None and violation is None:
            violation = (found[0], f"{timed.case}: {found[1]}")
    if any(t.profiler_ms is None for t in worker.timed):
        unchecked.append("the profiler did not run for some timed case")
    if blind:  # a candidate that breaks the profiler while checking must not pass D306 by it
        unchecked.append(f"{blind[0]}: the profiler saw no kernels in the checking call: "
                         "the kernels timed were not compared with those checked (D306), "
                         "so no speedup counts")
    for timed in worker.timed:
        if timed.graph_error is not None:
            unchecked.append(f"{timed.case}: timed as plain calls, not capturable as a CUDA "
                             f"graph ({P.cut(timed.graph_error, 160)})")
        base = baselines.get(timed.case)
        if base is not None and base.eager_ms and base.graph != timed.graph:
            unchecked.append(f"{timed.case}: the kernel and its baseline were timed in different "
                             "modes (CUDA graph or not): no speedup")
    unlocked = [reason for timed in worker.timed
                if (reason := outside_lock(timed, execution)) is not None]
    unchecked += unlocked
    unsaved = [t for t in worker.timed if t.unsaved is not None]
    for timed in unsaved:  # the worker's word: it only ever costs the kernel its speedup
        unchecked.append(f"{timed.case}: timed outputs not re-checked, the output folder was "
                         f"full ({P.cut(timed.unsaved, 160)}); raise --limit output=BYTES")
    if neighbours:
        unchecked.append(f"other processes used this GPU during the job "
                         f"({', '.join(neighbours[:3])}): the timings are disturbed, no speedup "
                         "counts; time on a GPU of its own")
    throttled = conditions.throttle_reasons if conditions and conditions.throttled else None
    if throttled is not None:
        unchecked.append(f"the GPU throttled ({', '.join(throttled)}): no speedup counts; let "
                         "it cool or raise its power limit")
    return SpeedResult(tuple(out), violation, tuple(dict.fromkeys(unchecked)),
                       not unsaved and not blind and not neighbours and throttled is None
                       and not unlocked and not starved)


def _undrained(timed: P.TimedCase, execution: P.ExecRecord | None) -> bool:
    """The case was timed in a granted window the GPU had not drained for: other jobs'
    queued kernels may have run beside the loop, stretching the supervisor's clock."""
    return outside_lock(timed, execution) == _UNDRAINED.format(case=timed.case)


_UNDRAINED = ("{case}: the GPU did not drain before its timing window (other jobs' kernels "
              "may have run in it): no speedup counts")


def outside_lock(timed: P.TimedCase, execution: P.ExecRecord | None) -> str | None:
    """Why a timed case on a shared GPU was not timed alone (None: it was, or the GPU was not
    shared): its start/end marks, on the supervisor's clock, must both fall inside one granted
    window that was exclusive and not revoked."""
    if execution is None or not execution.shared_gpu:
        return None
    start, end = _bracket(timed, execution)
    if start is None or end is None:
        return None  # no marks: D304's window check names it (_window)
    window = next((w for w in execution.windows
                   if w.start <= start.t and w.end is not None and end.t <= w.end), None)
    if window is None:
        return (f"{timed.case}: timed outside the GPU's timing lock (the GPU is shared with "
                "other jobs): no speedup counts")
    if window.revoked:
        return (f"{timed.case}: its timing window was revoked at its bound (the lock held too "
                "long): no speedup counts")
    if not window.exclusive:
        return _UNDRAINED.format(case=timed.case)
    return None


def _case_timing(plan: P.PlanRecord, spec: P.CaseSpec, timed: P.TimedCase,
                 baseline: P.Baseline | None, execution: P.ExecRecord | None) -> P.CaseTiming:
    from kgb.bench.timer import summary

    stats = summary(list(timed.times_ms))
    median = stats["median_ms"]
    # a graph replay is compared with graph replays only (judge: the baselines follow the
    # kernel's mode, or say they could not)
    alike = baseline if baseline is not None and baseline.graph == timed.graph else None
    eager = statistics.median(alike.eager_ms) if alike and alike.eager_ms else None
    compiled = statistics.median(alike.compile_ms) if alike and alike.compile_ms else None
    floor = _floor_ms(plan.floor_peaks, spec) if plan.floor_peaks else None
    peaks = plan.efficiency_peaks
    flops_rate = spec.flops / (median * 1e-3) if median > 0 else None
    bytes_rate = spec.bytes / (median * 1e-3) if median > 0 else None
    peak_flops = peaks.flops_per_s(spec.dtype) if peaks else None
    window = window_ms(timed, execution) if execution is not None else None
    loop = len(timed.times_ms) * baseline.overhead_ms \
        if baseline is not None and baseline.overhead_ms is not None else None
    return P.CaseTiming(
        case=spec.id, shape=spec.shape, dtype=spec.dtype, reps=len(timed.times_ms),
        median_ms=round(median, 6), iqr_ms=round(stats["iqr_ms"], 6), cv=round(stats["cv"], 4),
        min_ms=round(stats["min_ms"], 6),
        profiler_ms=timed.profiler_ms, eager_ms=_r(eager), compile_ms=_r(compiled),
        compile_error=baseline.compile_error if baseline else None,
        flops=spec.flops, bytes=spec.bytes, floor_ms=_r(floor),
        tflops=_r(flops_rate / 1e12 if flops_rate else None),
        gbps=_r(bytes_rate / 1e9 if bytes_rate else None),
        flops_fraction=_r(flops_rate / peak_flops if flops_rate and peak_flops else None),
        bandwidth_fraction=_r(bytes_rate / (peaks.bandwidth_gbps * 1e9)
                              if bytes_rate and peaks else None),
        graph=timed.graph, window_ms=_r(window), loop_ms=_r(loop),
        eager_cached_at=alike.eager_cached_at if eager is not None and alike else None,
        compile_cached_at=alike.compile_cached_at if compiled is not None and alike else None)


def _floor_ms(peaks: P.Peaks, spec: P.CaseSpec) -> float | None:
    rate = peaks.flops_per_s(spec.dtype)
    compute = spec.flops / rate if rate and spec.flops else 0.0
    memory = spec.bytes / (peaks.bandwidth_gbps * 1e9) if spec.bytes else 0.0
    floor = max(compute, memory)
    return floor * 1e3 if floor > 0 else None


def _rechecked(timed: P.TimedCase, checks: list[P.TimedCheck],
               execution: P.ExecRecord | None) -> tuple[Rule, str] | None:
    for check in checks:
        if timed.unsaved is not None and check.message == P.MISSING_OUTPUT:
            continue  # not saved for lack of room: no speedup counts (judge_speed)
        if check.status == P.CaseStatus.FAILED:
            rule = RR.TIMED_OUTPUT_SWAPPED if check.rule == RR.TIMED_OUTPUT_SWAPPED.id else \
                RR.TIMED_OUTPUT_WRONG
            return rule, f"timed call {check.rep}: {check.message}"
    if execution is not None and execution.channel:
        commit = next((c for c in execution.commits if c.case == timed.case), None)
        if commit is None or len(commit.fingerprints) != len(timed.times_ms):
            return RR.TIMED_OUTPUT_SWAPPED, ("the timed outputs were not committed to the "
                                             "supervisor as the timing loop ran them")
        if len(checks) < len(commit.keep) and timed.unsaved is None:
            return RR.TIMED_OUTPUT_WRONG, "a timed output the supervisor chose was not saved"
        if timed.unsaved is not None and _had_room(execution, commit):
            return RR.TIMED_OUTPUT_WRONG, ("a timed output the supervisor chose was not saved "
                                           "though the output folder had room for it")
    return None


def _had_room(execution: P.ExecRecord, commit: P.Commit) -> bool:
    """The host's count of the output folder against the worker's "it was full": an output of
    `commit.bytes` (held against the saved ones by the judge) would have fitted under the cap
    and on the disk (a host disk smaller than the cap is a real "full")."""
    used, cap, free = execution.output_used, execution.output_cap, execution.output_free
    if used is None or cap is None or free is None:
        return False
    need = max(commit.bytes, 1)
    # the worker refuses a save that would leave less than its result's reserve
    kept = P.RESULT_RESERVE_BYTES + P.OUTPUT_HEADER_BYTES
    return used + need + kept <= cap and need + kept <= free


def _bracket(timed: P.TimedCase, execution: P.ExecRecord
             ) -> tuple[P.Mark | None, P.Mark | None]:
    """The supervisor's start and end marks of a case's timing loop (None: not received)."""
    start = next((m for m in execution.marks if m.label == f"start {timed.case}"), None)
    end = next((m for m in execution.marks if m.label == f"end {timed.case}"), None)
    return start, end


def window_ms(timed: P.TimedCase, execution: P.ExecRecord) -> float | None:
    start, end = _bracket(timed, execution)
    return (end.t - start.t) * 1e3 if start is not None and end is not None else None


def _window(timed: P.TimedCase, execution: P.ExecRecord | None,
            baseline: P.Baseline | None) -> tuple[Rule, str] | None:
    """The timing loop's start/end marks must have reached the supervisor."""
    if execution is None or _loop_cost(execution, baseline) is None:
        return None
    if window_ms(timed, execution) is None:
        return RR.WORK_OUTSIDE_TIMED_WINDOW, "the timing loop sent no start/end marks"
    return None


def _excess(timed: P.TimedCase, execution: P.ExecRecord | None,
            baseline: P.Baseline | None) -> tuple[float, str] | None:
    """By how many ms the supervisor's window exceeds the loop's own cost, the events and the
    noise allowed, and what it saw, when it does (D304; another process's work on the GPU, or
    a wait for a CPU, shows here too)."""
    cost = _loop_cost(execution, baseline) if execution is not None else None
    window = window_ms(timed, execution) if execution is not None and cost is not None else None
    if cost is None or window is None:
        return None
    events = sum(timed.times_ms)
    reps = len(timed.times_ms)
    allowed = WINDOW_FACTOR * events + reps * WINDOW_SLACK_PER_CALL_MS + WINDOW_SLACK_MS
    over = window - reps * cost - allowed
    if over <= 0:
        return None
    return over, (f"the supervisor's clock saw {window:.1f} ms for {reps} timed calls; the "
                  f"loop's own cost is {reps * cost:.1f} ms and the events account for "
                  f"{events:.1f} ms")


def _cpu_wait_ms(timed: P.TimedCase, execution: P.ExecRecord | None) -> float | None:
    """The worker's main thread's wait for a CPU between the loop's marks (the supervisor's
    schedstat readings; None where it has none). A busy host stretches the supervisor's clock
    and not the events; a thread waiting for a CPU launches nothing, so the wait hides no
    work from the events, and a candidate that starves its own thread gains nothing by it:
    a window the wait explains counts no speedup."""
    start, end = _bracket(timed, execution) if execution is not None else (None, None)
    if start is None or end is None or start.waited is None or end.waited is None:
        return None
    return (end.waited - start.waited) * 1e3


def _loop_cost(execution: P.ExecRecord, baseline: P.Baseline | None) -> float | None:
    """The empty loop's cost per call, where the window can be checked at all."""
    return baseline.overhead_ms if execution.channel and baseline is not None else None


def _profiler(timed: P.TimedCase) -> tuple[Rule, str] | None:
    if timed.profiler_ms is None:
        return None
    median = statistics.median(timed.times_ms)
    if timed.profiler_ms > PROFILER_FACTOR * median + PROFILER_SLACK_MS:
        return RR.WORK_OUTSIDE_TIMED_WINDOW, (
            f"the profiler saw {timed.profiler_ms:.4f} ms of kernels on {timed.streams} "
            f"stream(s) in one call; the events measured {median:.4f} ms")
    return None


def checked_kernels(spec: P.CaseSpec, claim: P.CaseRecord | None) -> tuple[str, ...]:
    """The kernel names the profiler saw in the checking call the plan (trusted) profiled;
    empty when that call has no record or the profiler saw nothing there."""
    profiled = next((c for c in (claim.calls if claim else ())
                     if c.index == spec.profiled_call), None)
    return profiled.kernels if profiled is not None else ()


def _kernels(timed: P.TimedCase, checked_names: tuple[str, ...]) -> tuple[Rule, str] | None:
    if not checked_names or timed.profiler_ms is None:
        return None  # named among the unchecked by judge_speed
    checked, timed_set = set(checked_names), set(timed.kernels)
    if checked != timed_set:
        only_timed = sorted(timed_set - checked)[:3]
        only_checked = sorted(checked - timed_set)[:3]
        return RR.KERNEL_SWITCH, (f"timed calls ran {only_timed or 'no other kernel'}, checked "
                                  f"calls ran {only_checked or 'no other kernel'}")
    return None


def _floor(timing: P.CaseTiming) -> tuple[Rule, str] | None:
    if timing.floor_ms is not None and timing.median_ms < timing.floor_ms:
        return RR.IMPOSSIBLE_SPEED, (f"median {timing.median_ms:.4f} ms is below the hardware "
                                     f"floor of {timing.floor_ms:.4f} ms for this work")
    return None


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
