"""The trusted timing rules (kgb.runner.speed) on evidence as the worker, the supervisor and the
judge would write it: an honest kernel's timing stands; each forgery of one clock is caught by a
clock the candidate cannot touch. The same evidence comes from real runs on the GPU
(tests/fixtures/dynamic_gpu, scripts/gpu/); here each rule is pinned down without one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgb import protocol as P
from kgb.runner.speed import judge_speed

H100 = P.Peaks("NVIDIA H100", "datasheet: H100 SXM", 3350.0, {"float32": 495.0})
CASE = P.CaseSpec("c0", "large", {"M": 8192, "N": 8192}, "float32", "standard", "contiguous",
                  (P.CallSpec(P.CallKind.PRIMARY, 1),), flops=9 * 8192 * 8192,
                  bytes=2 * 8192 * 8192 * 4)
PLAN = P.PlanRecord("activation.gelu_tanh", "Activation", "k.py", "cuda:0", 60.0, (CASE,),
                    floor_peaks=H100, efficiency_peaks=H100)
REPS = 20
KERNEL_MS = 0.2  # 512 MB at ~2.6 TB/s: above the 0.16 ms floor
OVERHEAD_MS = 0.3  # the loop's own cost per call (inputs, L2 flush, synchronize)


def honest() -> tuple[P.ExecRecord, P.WorkerResult, P.JudgeResult]:
    prints = tuple(f"fp{i}" for i in range(REPS))
    window_s = REPS * (KERNEL_MS + OVERHEAD_MS) / 1e3
    execution = P.ExecRecord("bwrap", 0, False, 10.0, False, channel=True,
                             marks=(P.Mark("start c0", 5.0), P.Mark("end c0", 5.0 + window_s)),
                             commits=(P.Commit("c0", prints, (3, 11), 5.1),))
    primary = P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RETURNED, launches=1,
                           kernels=("_gelu_tanh_kernel",))
    timed = P.TimedCase("c0", (KERNEL_MS,) * REPS, 3, prints, (3, 11), profiler_ms=KERNEL_MS,
                        kernels=("_gelu_tanh_kernel",), streams=1)
    worker = P.WorkerResult("done", (P.CaseRecord("c0", (primary,)),), timed=(timed,))
    judge = P.JudgeResult((), timed_checks=(P.TimedCheck("c0", 3, P.CaseStatus.PASSED),
                                            P.TimedCheck("c0", 11, P.CaseStatus.PASSED)),
                          baselines=(P.Baseline("c0", (0.4,) * 10, (0.25,) * 10, None,
                                                OVERHEAD_MS),))
    return execution, worker, judge


def with_timed(worker: P.WorkerResult, **changes) -> P.WorkerResult:
    return replace(worker, timed=(replace(worker.timed[0], **changes),))


def rule(execution, worker, judge) -> str | None:
    result = judge_speed(PLAN, execution, worker, judge)
    return result.violation[0].id if result.violation else None


def test_an_honest_timing_stands_with_its_figures():
    execution, worker, judge = honest()
    result = judge_speed(PLAN, execution, worker, judge)
    assert result.violation is None and result.unchecked == ()
    timing = result.cases[0]
    assert timing.median_ms == KERNEL_MS and timing.eager_ms == 0.4 and timing.compile_ms == 0.25
    assert 0.15 < timing.floor_ms < 0.17  # 512 MB / 3.35 TB/s
    assert timing.gbps == round(2 * 8192 * 8192 * 4 / (KERNEL_MS * 1e-3) / 1e9, 6)
    # D304's evidence is in the figures, so how near the rule an honest kernel came can be read
    assert timing.window_ms == pytest.approx(REPS * (KERNEL_MS + OVERHEAD_MS))
    assert timing.loop_ms == pytest.approx(REPS * OVERHEAD_MS)


def test_side_stream_work_shows_in_the_profiler_against_the_events():
    execution, worker, judge = honest()
    # events on the current stream time nothing; the kernel ran on stream 2
    cheat = with_timed(worker, times_ms=(0.003,) * REPS, streams=2)
    assert rule(execution, cheat, judge) == "D304"


def test_forged_events_and_no_profiler_fall_to_the_supervisor_clock_or_the_floor():
    execution, worker, judge = honest()
    cheat = with_timed(worker, times_ms=(1e-6,) * REPS, profiler_ms=None, kernels=())
    assert rule(execution, cheat, judge) == "D307"
    # a long kernel: the supervisor's window sees what the events deny
    slow = REPS * (50.0 + OVERHEAD_MS) / 1e3
    long_exec = replace(execution, marks=(P.Mark("start c0", 5.0), P.Mark("end c0", 5.0 + slow)))
    assert rule(long_exec, cheat, judge) == "D304"


def test_a_window_stretched_beside_another_process_is_named_not_ruled_on():
    """Another process's kernels on the GPU stretch the supervisor's clock, not the events
    (docs/gpu.md run 13): beside a neighbour the window is no evidence and no speedup counts;
    what the neighbour cannot explain (missing marks, the profiler, the floor) still rules."""
    execution, worker, judge = honest()
    stretched = REPS * (KERNEL_MS + OVERHEAD_MS + 5.0) / 1e3  # 5 ms a call of someone else's
    busy = replace(execution, marks=(P.Mark("start c0", 5.0), P.Mark("end c0", 5.0 + stretched)))
    assert rule(busy, worker, judge) == "D304"
    near = P.Conditions(neighbours=("4242 python",))
    result = judge_speed(PLAN, busy, worker, judge, near)
    assert result.violation is None and not result.counted
    assert any("while other processes used this GPU (4242 python)" in u for u in result.unchecked)
    calm = judge_speed(PLAN, execution, worker, judge, near)
    assert calm.violation is None and not calm.counted  # disturbed timings never count
    assert judge_speed(PLAN, replace(execution, marks=()), worker, judge,
                       near).violation[0].id == "D304"
    forged = with_timed(worker, times_ms=(1e-6,) * REPS, profiler_ms=None, kernels=())
    assert judge_speed(PLAN, busy, forged, judge, near).violation[0].id == "D307"


def test_a_throttled_gpu_counts_no_speedup_and_says_why():
    execution, worker, judge = honest()
    hot = P.Conditions(throttle_reasons=("hw-thermal",), throttled=True)
    result = judge_speed(PLAN, execution, worker, judge, hot)
    assert result.violation is None and not result.counted
    assert any("the GPU throttled (hw-thermal)" in u for u in result.unchecked)
    assert judge_speed(PLAN, execution, worker, judge, P.Conditions()).counted


def test_missing_marks_are_a_violation_and_a_missing_channel_is_unchecked():
    execution, worker, judge = honest()
    assert rule(replace(execution, marks=()), worker, judge) == "D304"
    result = judge_speed(PLAN, replace(execution, channel=False, marks=(), commits=()), worker,
                         judge)
    assert result.violation is None and any("channel" in u for u in result.unchecked)


def test_a_wrong_timed_output_and_a_swapped_one():
    execution, worker, judge = honest()
    wrong = replace(judge, timed_checks=(P.TimedCheck("c0", 3, P.CaseStatus.PASSED),
                                         P.TimedCheck("c0", 11, P.CaseStatus.FAILED, "mismatch",
                                                      "D308")))
    assert rule(execution, worker, wrong) == "D308"
    swapped = replace(judge, timed_checks=(P.TimedCheck("c0", 3, P.CaseStatus.FAILED, "x",
                                                        "D309"),))
    assert rule(execution, worker, swapped) == "D309"
    unsaved = replace(judge, timed_checks=judge.timed_checks[:1])
    assert rule(execution, worker, unsaved) == "D308"
    uncommitted = replace(execution, commits=())
    assert rule(uncommitted, worker, judge) == "D309"


def test_a_kernel_switch_and_a_replay_that_launches_nothing():
    execution, worker, judge = honest()
    switched = with_timed(worker, kernels=("_fast_path",))
    assert rule(execution, switched, judge) == "D306"
    nothing = with_timed(worker, kernels=(), profiler_ms=0.0)
    assert rule(execution, nothing, judge) == "D306"
    no_profiler = with_timed(worker, kernels=(), profiler_ms=None)
    result = judge_speed(PLAN, execution, no_profiler, judge)
    assert result.violation is None and any("profiler" in u for u in result.unchecked)


def test_the_profiled_checking_call_is_a_repeat_of_the_primarys_shape():
    """The primary compiles and autotunes; its profile of an autotuner's thousands of benchmark
    launches took Kineto minutes to parse (fla on an H100): the first repeat is profiled."""
    kinds = (P.CallKind.PRIMARY, P.CallKind.FRESH, P.CallKind.SAME_VALUES, P.CallKind.GHOST)
    full = replace(CASE, calls=tuple(P.CallSpec(k, i) for i, k in enumerate(kinds)))
    assert full.profiled_call == 1
    ghost_only = replace(CASE, calls=(P.CallSpec(P.CallKind.PRIMARY, 1),
                                      P.CallSpec(P.CallKind.GHOST, 2)))
    assert ghost_only.profiled_call == 0 and CASE.profiled_call == 0
    # only a case that may be timed is profiled at all (the worker: spec.timing and timeable)
    assert CASE.timeable and not replace(CASE, mode="outlier").timeable
    assert not replace(CASE, layout="strided").timeable and not replace(CASE, skip="cpu").timeable


def test_the_kernels_timed_are_compared_with_the_profiled_calls_not_the_primarys():
    execution, worker, judge = honest()
    case = replace(CASE, calls=(P.CallSpec(P.CallKind.PRIMARY, 1), P.CallSpec(P.CallKind.FRESH, 2)))
    plan = replace(PLAN, cases=(case,))
    primary = replace(worker.cases[0].calls[0], kernels=())  # profiled nothing: not its job
    fresh = replace(primary, index=1, kind=P.CallKind.FRESH, kernels=("_gelu_tanh_kernel",))
    honest_worker = replace(worker, cases=(P.CaseRecord("c0", (primary, fresh)),))
    result = judge_speed(plan, execution, honest_worker, judge)
    assert result.violation is None and result.unchecked == ()
    switched = with_timed(honest_worker, kernels=("_fast_path",))
    assert judge_speed(plan, execution, switched, judge).violation[0].id == "D306"
    # names on an unprofiled call only (the worker's say, not the plan's): D306 is not checked,
    # and the report says so instead of counting it as passed
    blind = replace(honest_worker, cases=(P.CaseRecord("c0", (
        replace(primary, kernels=("_gelu_tanh_kernel",)), replace(fresh, kernels=()))),))
    result = judge_speed(plan, execution, with_timed(blind, kernels=("_fast_path",)), judge)
    assert result.violation is None and not result.counted  # no speedup rests on it
    assert any("D306" in u and "no kernels in the checking call" in u for u in result.unchecked)
    assert judge_speed(plan, execution, honest_worker, judge).counted


def test_impossible_speed_against_the_datasheet():
    execution, worker, judge = honest()
    fast = with_timed(worker, times_ms=(0.05,) * REPS, profiler_ms=0.05)
    assert rule(execution, fast, judge) == "D307"
    unknown = replace(PLAN, floor_peaks=None)
    result = judge_speed(unknown, execution, fast, judge)
    assert result.violation is None and any("peaks" in u for u in result.unchecked)


def test_the_profiler_counts_fills_as_time_but_not_as_kernels():
    """The autotuner's first call flushes L2 with an int32 fill (triton.testing.do_bench): seen
    on an H100 as a 'kernel switch' of the suite's matmul, since timed calls do not autotune.
    Fills are allocation, not the candidate's kernels; their time still counts."""
    from types import SimpleNamespace as E

    from kgb.bench.profiler import summarize

    cuda = "CUDA"
    events = [E(device_type=cuda, name="_matmul_kernel", self_device_time_total=900.0,
                device_resource_id=7),
              E(device_type=cuda, name="void at::native::vectorized_elementwise_kernel<4, "
                "at::native::FillFunctor<int>, std::array<char*, 1ul> >(int, ...)",
                self_device_time_total=100.0, device_resource_id=7),
              E(device_type=cuda, name="Memset (Device)", self_device_time_total=5.0,
                device_resource_id=7),
              E(device_type="CPU", name="aten::zeros", self_device_time_total=0.0)]
    seen = summarize(events, cuda)
    assert seen.kernels == frozenset({"_matmul_kernel"})
    assert seen.device_ms == 1.0 and seen.streams == 1


def test_timed_outputs_the_output_folder_could_not_hold_cost_the_speedup_not_the_verdict():
    """A kept timed output that did not fit the output folder (a 6 GB softmax output beside
    the case calls') is not a cheat: the re-check is named as missing and no speedup counts.
    Without the worker's note the missing file stays D308."""
    execution, worker, judge = honest()
    missing = replace(judge, timed_checks=(
        P.TimedCheck("c0", 3, P.CaseStatus.PASSED),
        P.TimedCheck("c0", 11, P.CaseStatus.FAILED, P.MISSING_OUTPUT, "D308")))
    assert rule(execution, worker, missing) == "D308"
    full = with_timed(worker, unsaved="timed call 11: No space left on device (os error 28)")
    result = judge_speed(PLAN, execution, full, missing)
    assert result.violation is None and not result.counted
    assert any("output folder was full" in u and "--limit output" in u
               for u in result.unchecked)
    # a wrong output that was saved is still D308 whatever the worker says about room
    wrong = replace(judge, timed_checks=(
        P.TimedCheck("c0", 3, P.CaseStatus.FAILED, "mismatch", "D308"),))
    assert rule(execution, full, wrong) == "D308"


def test_an_overstated_output_size_is_caught_by_the_judge():
    """The supervisor keeps one timed output instead of four when the worker says each takes
    6 GiB; the judge holds that claim against the bytes it loaded (D309)."""
    import torch

    from kgb.judge.speed import size_claim_problem
    from kgb.sandbox._supervisor import keep_count

    assert keep_count(20, 256 << 20) == 4 and keep_count(20, 6 << 30) == 1
    assert keep_count(2, 1) == 2 and keep_count(20, 3 << 30) == 2
    outputs = [torch.zeros(1000, 250, dtype=torch.float32)]  # 1 MB
    prints = tuple(f"fp{i}" for i in range(20))
    honest_commit = P.Commit("c0", prints, (2, 7, 11, 19), 1.0, bytes=1_000_000)
    assert size_claim_problem(honest_commit, outputs) is None
    # a size that varies from call to call (the claim is the first call's) is no offence
    assert size_claim_problem(replace(honest_commit, bytes=2_000_000), outputs) is None
    inflated = replace(honest_commit, keep=(7,), bytes=6 << 30)  # one kept, as it asked
    assert "6442450944 bytes, so it re-checked 1; they take 1000000" in \
        size_claim_problem(inflated, outputs)


def test_a_full_output_folder_is_believed_only_when_the_host_saw_it_full():
    """"The folder was full" is the worker's word; the host counted the folder after the run.
    With room under the cap and on the disk for the output, the missing re-check is D308; a
    folder at its cap, or a disk with less free space than the output, is a real "full"."""
    execution, worker, judge = honest()
    big = 6 << 30
    commit = replace(execution.commits[0], bytes=big)
    full = with_timed(worker, unsaved="timed call 11: No space left on device (os error 28)")
    missing = replace(judge, timed_checks=(
        P.TimedCheck("c0", 3, P.CaseStatus.PASSED),
        P.TimedCheck("c0", 11, P.CaseStatus.FAILED, P.MISSING_OUTPUT, "D308")))
    roomy = replace(execution, commits=(commit,), output_used=1 << 30, output_cap=32 << 30,
                    output_free=500 << 30)
    assert rule(roomy, full, missing) == "D308"
    at_cap = replace(roomy, output_used=30 << 30)
    assert rule(at_cap, full, missing) is None
    small_disk = replace(roomy, output_free=2 << 30)
    assert rule(small_disk, full, missing) is None
    # the worker keeps its result's reserve free: an output that fits only into it is "full"
    reserve = P.RESULT_RESERVE_BYTES
    assert rule(replace(roomy, output_used=(32 << 30) - big - reserve), full, missing) is None
    assert rule(replace(roomy, output_used=(32 << 30) - big - 2 * reserve), full,
                missing) == "D308"


def test_a_graph_timed_kernel_is_compared_with_graph_timed_baselines_only():
    """--cuda-graph: the judge times the baselines as graph replays too; where it could not,
    a replay's time is never set against a plain call's (no speedup, and the report says
    why). A kernel that could not be captured was timed plainly and says so."""
    execution, worker, judge = honest()
    graphed = with_timed(worker, graph=True)
    plain_base = judge
    result = judge_speed(PLAN, execution, graphed, plain_base)
    assert result.cases[0].graph and result.cases[0].eager_ms is None
    assert result.cases[0].compile_ms is None
    assert any("different modes" in u for u in result.unchecked)
    graph_base = replace(judge, baselines=(replace(judge.baselines[0], graph=True),))
    result = judge_speed(PLAN, execution, graphed, graph_base)
    assert result.cases[0].eager_ms == 0.4 and result.unchecked == ()
    fell_back = with_timed(worker, graph_error="RuntimeError: operation not permitted")
    result = judge_speed(PLAN, execution, fell_back, judge)
    assert result.cases[0].eager_ms == 0.4  # both plain: comparable
    assert any("not capturable as a CUDA graph" in u for u in result.unchecked)


def test_only_planned_and_kept_files_stay_in_the_output_folder(tmp_path):
    # protocol-shaped files the plan does not name (a case_999 file, timed outputs the
    # supervisor did not keep) are planted to make the folder look full: they go before the
    # host counts it (kgb.runner.speed trusts "the folder was full" only from that count)
    from kgb import protocol as P
    from kgb.runner.execute import drop_leftovers, planned_names
    from kgb.runner.plan import Job
    from kgb.tasks.loader import load_task
    from kgb.tasks.model import Case
    from conftest import ROOT

    task = load_task(ROOT / "tasks" / "Math" / "addcmul")
    shape = task.shapes[0]
    calls = (P.CallSpec(P.CallKind.PRIMARY, 1), P.CallSpec(P.CallKind.FRESH, 2))
    cases = (Case("a", shape, "float32", "standard", 1, calls=calls),
             Case("b", shape, "float32", "standard", 2, calls=calls[:1]))
    job = Job(task, None, cases, "cuda:0")
    commits = (P.Commit("b", ("f0", "f1", "f2"), keep=(0, 2), t=0.0),)
    planned = planned_names(job, commits)
    kept = {P.RESULT_FILE, P.output_file(0, 0), P.output_file(0, 1), P.output_file(1, 0),
            P.timed_file(1, 0), P.timed_file(1, 2)}
    planted = {P.output_file(999, 0), P.output_file(1, 1), P.timed_file(1, 1),
               P.timed_file(0, 0), "junk.bin"}
    for name in kept | planted:
        (tmp_path / name).write_bytes(b"x" * 16)
    assert drop_leftovers(tmp_path, planned) == len(planted)
    assert {p.name for p in tmp_path.iterdir()} == kept


def test_a_window_stretched_by_the_workers_wait_for_a_cpu_is_named_not_ruled_on():
    """A host busy with other work keeps the worker's thread waiting for a CPU: the supervisor's
    clock runs on, the events do not. Where the thread's run-queue wait between the marks
    (the supervisor's schedstat readings) covers the excess, the window is no evidence and no
    speedup counts; where it does not, or the readings are missing, D304 still rules."""
    execution, worker, judge = honest()
    window_s = REPS * (KERNEL_MS + OVERHEAD_MS) / 1e3
    stretched = window_s + 0.120  # 120 ms over the loop and events (66 ms allowed)

    def marks(waited_ms: float | None) -> P.ExecRecord:
        start, end = (None, None) if waited_ms is None else (2.0, 2.0 + waited_ms / 1e3)
        return replace(execution, marks=(P.Mark("start c0", 5.0, start),
                                         P.Mark("end c0", 5.0 + stretched, end)))

    assert rule(marks(None), worker, judge) == "D304"  # no readings: as before
    assert rule(marks(30.0), worker, judge) == "D304"  # a wait that explains too little
    waited = judge_speed(PLAN, marks(115.0), worker, judge)
    assert waited.violation is None and not waited.counted
    assert any("waited 115.0 ms for a CPU" in u for u in waited.unchecked), waited.unchecked
    # what a wait cannot explain still rules: forged events fall to the floor, and work on a
    # side stream while the candidate starves its own thread falls to the profiler's clock
    forged = with_timed(worker, times_ms=(1e-6,) * REPS, profiler_ms=None, kernels=())
    assert judge_speed(PLAN, marks(115.0), forged, judge).violation[0].id == "D307"
    side = with_timed(worker, times_ms=(0.003,) * REPS, streams=2)
    assert judge_speed(PLAN, marks(115.0), side, judge).violation[0].id == "D304"
    # a wait in an honest window changes nothing
    calm = replace(execution, marks=(P.Mark("start c0", 5.0, 2.0),
                                     P.Mark("end c0", 5.0 + window_s, 2.005)))
    assert judge_speed(PLAN, calm, worker, judge).counted
