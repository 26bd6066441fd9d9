"""Small defects left by session 28 (issues 24/28 residue), each pinned by a cheap test: the D305
message, the overhead split's threat-13 wait, JobNotStarted's advice, a timeout spent waiting
for a CPU, the timing lock's GPU found by UUID, and a sharded task's run-time budget."""

from __future__ import annotations

from kgb import protocol as P
from kgb.protocol import CallKind as K
from kgb.protocol import CaseStatus as S
from kgb.runner.verdict import decide


def _plan(*ids: str, timeout_s: float = 10.0, compile_budget_s: float = 0.0) -> P.PlanRecord:
    cases = tuple(P.CaseSpec(i, "s", {"N": 4}, "float32", "standard", "contiguous",
                             (P.CallSpec(K.PRIMARY, 7),)) for i in ids or ("a",))
    return P.PlanRecord("t.x", "Math", "kernels/k.py", "cpu", timeout_s, cases,
                        compile_budget_s=compile_budget_s)


# ------------------------------------------------------------------ 1. the D305 message

def test_the_late_write_message_says_what_was_checked_not_a_window():
    """The outputs are re-read while later calls run (347f812): a change may be seen after a
    later call, past the 50 ms wait, so "within 50 ms" misstated it."""
    late = P.CallRecord(0, K.PRIMARY, S.RETURNED, output_types=(P.PLAIN_TENSOR,), launches=1,
                        outputs=(P.OutputMeta("float32", (4,), "cpu"),), late_write=True)
    v = decide(_plan(), P.ExecRecord("process", 0, False, 1.0, False),
               P.WorkerResult("done", (P.CaseRecord("a", (late,)),)), None, None)
    assert v.verdict == "rejected" and v.rule == "D305", v
    assert "within" not in v.message, v.message
    assert "later call" in v.message and "before the kernel was called again" in v.message


# ------------------------------------------------------------------ 2. the overhead's wait

def test_the_worker_reports_the_time_its_late_write_checks_took():
    """The overhead split counted 50 ms per saved primary call; since c73508e the wait
    overlaps the next calls and only what is left is slept. The worker now times its re-reads
    and that sleep, and the split shows that figure."""
    import time

    import torch

    from kgb.metrics.overhead import job_overhead
    from kgb.tasks.casegen import outputs_fingerprint
    from kgb.worker.main import _CallRunner, _LateCheck, _Progress

    progress = _Progress()
    runner = object.__new__(_CallRunner)
    runner.sync, runner.progress = (lambda: None), progress
    out = (torch.zeros(8),)
    runner.pending = [_LateCheck(0, 0, out, outputs_fingerprint(out), time.perf_counter() + 0.03)]
    runner.settle(None)  # before the next call: nothing left to sleep yet
    runner.settle((), last=True)  # the last case is over: sleeps what is left
    spent = progress.result().late_check_s
    assert spent is not None and 0.025 <= spent < 1.0, spent
    saved = P.CallRecord(0, K.PRIMARY, S.RETURNED, outputs=(P.OutputMeta("float32", (4,), "cpu"),),
                         wall_s=0.1)
    worker = P.WorkerResult("done", tuple(P.CaseRecord(str(i), (saved,)) for i in range(24)),
                            late_check_s=spent)
    marks = tuple(P.Mark(f"stage {n}", t) for n, t in (("import", 1.0), ("cases", 1.1),
                                                        ("done", 5.1)))
    execution = P.ExecRecord("process", 0, False, 6.0, False, channel=True, marks=marks,
                             compile_s=0.0, worker_s=5.5)
    host = P.HostPhases(static_s=0.1, sandbox_s=6.0, judge_s=0.0, grade_s=0.1, total_s=6.5)
    steps = {s.name: s.seconds for s in job_overhead(host, execution, worker, None).steps}
    assert steps["deferred-write waits"] == spent  # 24 × 50 ms = 1.2 s before
    older = job_overhead(host, execution, P.WorkerResult("done", worker.cases), None)
    assert {s.name: s.seconds for s in older.steps}["deferred-write waits"] == 0.0


# ------------------------------------------------------------------ 4. a timeout spent waiting

def _timed_out(compile_s: float, startup_s: float, waited_s: float) -> P.VerdictRecord:
    marks = tuple(P.Mark(f"stage {s}", t) for s, t in (("import", startup_s), ("cases", 20.0)))
    hung = P.ExecRecord("process", None, True, 130.0, False, channel=True, marks=marks,
                        compile_s=compile_s, startup_s=startup_s, waited_s=waited_s)
    return decide(_plan(timeout_s=60.0, compile_budget_s=60.0), hung, None, None, None,
                  P.Progress("cases", 1, compile_s, 100.0))


def test_a_timeout_spent_waiting_for_a_cpu_is_not_blamed_on_compiling():
    """The start-up/compile budget also pays for the worker's run-queue delay (a busy machine):
    when that wait is most of what ran it out, the message says so and does not tell the user
    to raise the compile budget per case as if the kernel compiled slowly."""
    v = _timed_out(compile_s=4.0, startup_s=6.0, waited_s=55.0)
    assert v.verdict == "timeout"
    assert "spent mostly waiting for a CPU rather than compiling" in v.message, v.message
    assert "waiting for a CPU 55 s" in v.message and "stage cases" in v.message
    assert "compile_case" not in v.message and "fewer jobs" in v.message
    # compiling was most of it: the compile budget's advice, as before
    v = _timed_out(compile_s=45.0, startup_s=6.0, waited_s=12.0)
    assert "waiting for a CPU rather" not in v.message and "compile_case=SECONDS" in v.message


# ------------------------------------------------------------------ 5. the drained GPU by UUID

class _FakeNvml:
    """pynvml as far as gpu_idle uses it: two GPUs, NVML index order = bus order (NVML ignores
    CUDA_VISIBLE_DEVICES), utilization per UUID."""

    def __init__(self, busy: dict[str, int]) -> None:
        self.busy, self.order = busy, list(busy)

    def nvmlInit(self) -> None:
        pass

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return self.order[index]

    def nvmlDeviceGetHandleByUUID(self, uuid) -> str:
        uuid = uuid.decode() if isinstance(uuid, bytes) else uuid
        if uuid not in self.busy:
            raise RuntimeError("NVML_ERROR_NOT_FOUND")
        return uuid

    def nvmlDeviceGetUtilizationRates(self, handle: str):
        from types import SimpleNamespace

        return SimpleNamespace(gpu=self.busy[handle])

    NVML_GPU_UTILIZATION_SAMPLES = 1

    class NVMLError_NotFound(Exception):
        pass

    def nvmlDeviceGetSamples(self, handle: str, kind: int, last_seen_us: int):
        """One sample, stamped now, of the GPU's steady utilization."""
        import time
        from types import SimpleNamespace

        return kind, [SimpleNamespace(timeStamp=int(time.time() * 1e6),
                                      sampleValue=SimpleNamespace(uiVal=self.busy[handle]))]


def _two_gpus(tmp_path, monkeypatch, busy: dict[str, int], uuids: bool = True) -> None:
    import sys

    from kgb.sandbox import gpu

    for n, uuid in enumerate(busy):
        folder = tmp_path / f"0000:0{n + 1}:00.0"
        folder.mkdir()
        (folder / "information").write_text(
            (f"GPU UUID: \t {uuid}\n" if uuids else "") + f"Device Minor: \t {n}\n")
    monkeypatch.setattr(gpu, "DRIVER_GPUS", str(tmp_path))
    monkeypatch.setitem(sys.modules, "pynvml", _FakeNvml(busy))


def test_the_drain_waits_on_the_gpu_cuda_means_not_nvmls_index(tmp_path, monkeypatch):
    """CUDA_VISIBLE_DEVICES=1: `cuda:0` is the second GPU, NVML's index 0 the first. Looked up
    by index, the idle first GPU let a window count as exclusive while the job's own GPU was
    still busy (fail open); by UUID the drain waits on the right one."""
    from kgb.runner.gpu_share import drain_for

    _two_gpus(tmp_path, monkeypatch, {"GPU-aaaa-idle": 0, "GPU-bbbb-busy": 100})
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert drain_for("cuda:0")(0.05) is False  # its GPU (the second) never went idle
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    assert drain_for("cuda:0")(0.05) is True
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert drain_for("cuda:1")(0.05) is False


def test_the_drain_fails_closed_when_the_gpu_cannot_be_named(tmp_path, monkeypatch):
    from kgb.runner.gpu_share import drain_for, gpu_idle

    _two_gpus(tmp_path, monkeypatch, {"GPU-aaaa-idle": 0, "GPU-bbbb-idle": 0}, uuids=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert drain_for("cuda:0")(0.05) is False  # no UUID in the driver's entry
    assert drain_for("cuda:7")(0.05) is False  # no such GPU
    assert gpu_idle("GPU-not-there", 0.05) is False  # NVML does not know it
    assert drain_for("cpu")(0.05) is True  # nothing to drain on the CPU


class _SampledNvml(_FakeNvml):
    """_FakeNvml with timestamped utilization samples (epoch seconds, percent) per UUID."""

    def __init__(self, busy: dict[str, int], samples: dict[str, list[tuple[float, int]]]):
        super().__init__(busy)
        self.samples = samples

    def nvmlDeviceGetSamples(self, handle: str, kind: int, last_seen_us: int):
        from types import SimpleNamespace

        newer = [SimpleNamespace(timeStamp=int(t * 1e6), sampleValue=SimpleNamespace(uiVal=v))
                 for t, v in self.samples[handle] if t * 1e6 > last_seen_us]
        if not newer:
            raise self.NVMLError_NotFound()
        return kind, newer


def test_the_sampled_drain_wants_an_idle_sample_stamped_after_the_freeze(tmp_path,
                                                                         monkeypatch):
    """NVML's rate can read 0 % from a period that ended before the freeze while a tenant's
    kernel, launched in between, still runs: the rate drain grants an exclusive window there;
    the sampled one (the default; KGB_DRAIN=rates for the rate) waits for a 0 % sample stamped
    after the freeze."""
    import sys
    import time

    from kgb.runner.gpu_share import drain_for, gpu_idle, gpu_idle_since

    now = time.time()
    uuid = "GPU-aaaa"
    _two_gpus(tmp_path, monkeypatch, {uuid: 0})
    fake = _SampledNvml({uuid: 0}, {uuid: [(now - 0.3, 0), (now + 0.05, 100)]})
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    assert gpu_idle(uuid, 0.05) is True  # the stale 0 % reading: granted
    assert gpu_idle_since(uuid, 0.2, now) is False  # only a busy sample after the freeze
    fake.samples[uuid].append((now + 0.1, 0))
    assert gpu_idle_since(uuid, 0.2, now) is True
    assert gpu_idle_since(uuid, 0.1, now + 10) is False  # nothing newer: NotFound, then False
    assert gpu_idle_since("GPU-not-there", 0.05, now) is False
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    fake.samples[uuid] = [(now - 0.3, 0)]
    monkeypatch.delenv("KGB_DRAIN", raising=False)
    assert drain_for("cuda:0")(0.1) is False  # by default: no sample after this freeze
    monkeypatch.setenv("KGB_DRAIN", "rates")
    assert drain_for("cuda:0")(0.1) is True  # the rate drain takes the stale reading
    monkeypatch.delenv("KGB_DRAIN")
    fake.samples[uuid].append((time.time() + 0.05, 0))
    assert drain_for("cuda:0")(0.5) is True


# ------------------------------------------------------------------ 6. a sharded task's budget

def test_the_shards_run_time_is_counted_as_one_job_s_supervisor_would(tmp_path):
    """Each shard's worker life on its supervisor's clock less its start-up/compile/CPU-wait
    credit (capped at its compile budget), the credit summed over the shards capped at the
    task's compile budget plus the start-ups sharding added; held against one run budget."""
    from kgb.runner.shards import _over_run_time, _ShardFiles, run_seconds

    def shard(worker_s: float | None, wall_s: float, compile_s: float,
              startup_s: float = 0.0) -> _ShardFiles:
        e = P.ExecRecord("process", 0, False, wall_s, False, compile_s=compile_s,
                         startup_s=startup_s, waited_s=0.0, worker_s=worker_s)
        return _ShardFiles(tmp_path, _plan(timeout_s=100.0, compile_budget_s=30.0), e, None,
                           None, None, None, None)

    assert run_seconds([shard(60.0, 70.0, 20.0)], 30.0) == 40.0
    assert run_seconds([shard(60.0, 70.0, 50.0)], 30.0) == 30.0  # credit capped at 30 s
    assert run_seconds([shard(None, 70.0, 20.0)], 30.0) == 50.0  # no supervisor report
    assert _over_run_time([shard(60.0, 70.0, 20.0)] * 2, 100.0, 60.0) is None  # 80 s of 100
    assert "add up to 120.0 s" in (_over_run_time([shard(60.0, 70.0, 20.0)] * 3, 100.0, 60.0)
                                   or "")
    # Three shards each claiming its whole 30 s compile budget: one job's 30 s, not 90 s
    # (one job would have run 3 × 80 - 30 = 210 s past its budget) ...
    assert run_seconds([shard(80.0, 90.0, 30.0)] * 3, 30.0) == 210.0
    # ... but the start-ups sharding repeated are kgb's: 3 × 10 s, two of them extra (the
    # credit is 30 + 20 s, not 30 s)
    assert run_seconds([shard(60.0, 70.0, 20.0, startup_s=10.0)] * 3, 30.0) == 130.0


# ------------------------------------------------------------------ 3. JobNotStarted's advice

def test_a_start_stopped_from_outside_or_short_for_a_moment_says_resume():
    from kgb.sandbox.base import not_started

    signalled = not_started("the sandbox's supervisor got signal 15",
                            {"released": False, "interrupted": 15})
    assert str(signalled).endswith("run again with --resume")
    short = not_started("the worker could not be started in it: [Errno 11] Resource "
                        "temporarily unavailable", {"not_started": "[Errno 11] Resource "
                                                    "temporarily unavailable"})
    assert str(short).endswith("run again with --resume")


def test_a_set_up_error_every_retry_meets_names_its_fix_not_resume():
    from kgb.sandbox.base import not_started

    for text, fix in (("[Errno 13] Permission denied: '/root/out/jobs/t'", "chmod o+x"),
                      ("[Errno 8] Exec format error: '/opt/py'", "this machine's Python"),
                      ("KeyError: 'argv'", "kgb sandbox check")):
        message = str(not_started(f"the worker could not be started in it: {text}",
                                  {"not_started": text}))
        assert "--resume" not in message and fix in message, message
        assert text in message and "every attempt meets it again" in message


def test_an_unreachable_folder_is_named_with_its_fix_on_the_process_backend(tmp_path):
    """End to end: the supervisor's close-on-exec pipe reports ENOENT for the job's folder;
    the error names the folder and what to fix, and no longer advises --resume (a rerun
    meets the same folder)."""
    import sys

    import pytest

    from kgb.sandbox import Limits, SandboxRequest, create_sandbox
    from kgb.sandbox.base import JobNotStarted

    sandbox = create_sandbox("process")
    out = tmp_path / "out"
    out.mkdir()
    try:
        with pytest.raises(JobNotStarted) as raised:
            sandbox.run(SandboxRequest(
                argv=(sys.executable, "-c", "print('ran')"), out_dir=out, ro_paths=(), env=(),
                tmp_dir=tmp_path / "scratch", cwd=tmp_path / "no-such-folder"),
                Limits(wall_time_s=30))
    finally:
        sandbox.close()
    message = str(raised.value)
    assert "could not be started" in message and "no-such-folder" in message, message
    assert "--resume" not in message and "give --out a folder" in message
