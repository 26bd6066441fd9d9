"""kgb's own cost per job (kgb.metrics.overhead): the steps add up to the job, each second lands
in the bucket it belongs to, and a job without stage marks or without a run still adds up."""

from __future__ import annotations

import math

import pytest

from kgb import protocol as P
from kgb.metrics.overhead import (
    ANTICHEAT,
    BASELINES,
    COMPILE,
    CORRECTNESS,
    CUDA,
    HOST,
    SANDBOX,
    TIMING,
    job_overhead,
)

STAGES = (("runtime", 2.0), ("device", 2.5), ("import", 2.6), ("cases", 2.7), ("timing", 12.7),
          ("done", 14.7))


def call(kind, wall_s, saved=True):
    outputs = (P.OutputMeta("float32", (4,), "cpu"),) if saved else ()
    return P.CallRecord(0, kind, P.CaseStatus.RETURNED, outputs=outputs, wall_s=wall_s)


def execution(marks=STAGES, wall_s=15.5, worker_s=15.0, compile_s=3.0):
    return P.ExecRecord("bwrap", 0, False, wall_s, False, channel=True,
                        marks=tuple(P.Mark(f"stage {n}", t) for n, t in marks),
                        compile_s=compile_s, worker_s=worker_s)


WORKER = P.WorkerResult("done", (P.CaseRecord("a", (call(P.CallKind.PRIMARY, 5.0),
                                                     call(P.CallKind.FRESH, 1.0),
                                                     call(P.CallKind.GHOST, 0.5))),
                                  P.CaseRecord("b", (call(P.CallKind.PRIMARY, 1.0, saved=False),))),
                        timed=(P.TimedCase("a", (0.2, 0.4, 0.3), 3, (), ()),
                               P.TimedCase("b", (1.0,), 1, (), ())), late_check_s=0.04)
JUDGE = P.JudgeResult((), phases=(P.Phase("load", 0.1), P.Phase("cases:primary", 1.0),
                                  P.Phase("cases:checks", 0.5), P.Phase("cases:other", 0.1),
                                  P.Phase("recheck", 0.2), P.Phase("baselines", 4.0)))
HOST_PHASES = P.HostPhases(static_s=0.3, sandbox_s=15.5, judge_s=6.9, grade_s=0.2, total_s=23.4)


def test_steps_add_up_and_land_in_their_buckets():
    o = job_overhead(HOST_PHASES, execution(), WORKER, JUDGE)
    assert math.isclose(sum(s.seconds for s in o.steps), o.total_s)
    assert o.bucket(CUDA) == pytest.approx(0.5)  # runtime -> device
    assert o.bucket(COMPILE) == pytest.approx(3.0)
    assert o.bucket(TIMING) == pytest.approx(2.0)
    assert o.bucket(BASELINES) == pytest.approx(4.0)
    steps = {s.name: s.seconds for s in o.steps}
    assert steps["primary calls"] == pytest.approx(6.0 - 3.0)  # compiling counted apart
    assert steps["anti-caching, determinism, ghost calls"] == pytest.approx(1.5)
    # what the worker timed in its threat-13 re-reads (overlapped with the next calls since
    # c73508e), not 50 ms per saved primary call
    assert steps["deferred-write waits"] == pytest.approx(0.04)
    assert steps["inputs, clones, saving outputs"] == pytest.approx(10.0 - 3.0 - 3.0 - 1.5 - 0.04)
    assert steps["sandbox start and teardown"] == pytest.approx(0.5)
    assert steps["worker exit"] == pytest.approx(0.3)
    assert steps["judge: start, queue and transfer"] == pytest.approx(6.9 - 5.9)
    assert o.bucket(ANTICHEAT) == pytest.approx(0.3 + 1.5 + 0.04 + 0.5 + 0.2)
    assert o.bucket(SANDBOX) == pytest.approx(0.5 + 2.0 + 0.1 + 0.3)
    assert o.bucket(CORRECTNESS) > 0 and o.bucket(HOST) > 0
    assert o.kernel_ms == pytest.approx(0.3 + 1.0)  # median of a, plus b


def test_compile_longer_than_the_cases_stage_is_clamped():
    o = job_overhead(HOST_PHASES, execution(compile_s=50.0), WORKER, JUDGE)
    steps = {s.name: s.seconds for s in o.steps}
    assert steps["compile and autotune"] == pytest.approx(10.0)
    assert all(s.seconds >= 0 for s in o.steps)


def test_a_worker_without_marks_is_one_sandbox_step():
    o = job_overhead(HOST_PHASES, execution(marks=()), None, None)
    steps = {s.name: s.seconds for s in o.steps}
    assert steps["worker (no stage marks)"] == pytest.approx(15.0)
    assert math.isclose(sum(s.seconds for s in o.steps), o.total_s)
    assert o.kernel_ms is None


def test_a_statically_rejected_job_is_layer_1_grading_and_host():
    host = P.HostPhases(static_s=0.2, sandbox_s=0.0, judge_s=0.0, grade_s=0.05, total_s=0.3)
    o = job_overhead(host, None, None, None)
    assert [s.name for s in o.steps] == ["layer 1 and code metrics", "grading",
                                         "host: plan, files, GPU snapshots"]
    assert math.isclose(sum(s.seconds for s in o.steps), 0.3)
