"""Several jobs per GPU, one exclusive timing lock (issue 24; kgb/runner/gpu_share.py,
kgb/sandbox/_supervisor.py point 9). On the CPU: real processes frozen and thawed, the
supervisor's lock protocol driven by fake workers (tests/fixtures/timing_lock, raw channel
fds as an attacker writes them), and the speed grading of windows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from kgb import protocol as P
from kgb.runner.gpu_share import GpuShare, Shares
from kgb.runner.speed import outside_lock
from kgb.sandbox.base import Limits, SandboxRequest
from kgb.sandbox.process import ProcessSandbox
from kgb.sandbox.subproc import Child

FIXTURES = Path(__file__).parent / "fixtures" / "timing_lock"

COUNTER = """
import sys, time
n = 0
while True:
    n += 1
    if n % 1000 == 0:
        open(sys.argv[1], "w").write(str(n))
"""


def _count(path: Path) -> int:
    try:
        return int(path.read_text() or 0)
    except (OSError, ValueError):
        return 0


def _wait_for(predicate, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.02)


def test_a_frozen_busy_process_makes_no_progress_and_is_told_its_frozen_seconds(tmp_path):
    """The lock's freeze is SIGSTOP of the sandbox's whole tree, found from its root pid: a
    busy child (a grandchild here, as a worker under its supervisor) counts nothing while
    another holds the lock, resumes at the release, and its stdin hears `frozen <s>` first."""
    counter, heard = tmp_path / "n", tmp_path / "heard"
    script = (f"import subprocess, sys\n"
              f"subprocess.Popen([sys.executable, '-c', {COUNTER!r}, {str(counter)!r}])\n"
              f"open({str(heard)!r}, 'w').write(sys.stdin.readline())\n"
              f"import time; time.sleep(60)\n")
    child = Child([sys.executable, "-c", script], dict(os.environ), 4096, stdin_pipe=True)
    share = GpuShare("cpu")
    try:
        busy = share.join("busy", child)
        holder = share.join("holder", None)
        _wait_for(lambda: _count(counter) > 0)
        assert share.acquire(holder, 30.0) is True  # the CPU has nothing to drain
        time.sleep(0.2)  # a count already in flight lands
        frozen_at = _count(counter)
        time.sleep(0.6)
        assert _count(counter) == frozen_at, "a frozen process made progress"
        assert busy.frozen_since is not None
        share.release(holder)
        _wait_for(lambda: _count(counter) > frozen_at)
        assert 0.7 <= busy.frozen_s < 5.0
        _wait_for(lambda: heard.exists() and heard.read_text().startswith("frozen "))
        assert abs(float(heard.read_text().split()[1]) - busy.frozen_s) < 1e-3
        assert [w.holder for w in share.windows] == ["holder"]
    finally:
        child.wait(0.0)  # past its deadline at once: the tree is killed


def test_one_holder_at_a_time_revoked_at_its_bound_and_released_when_it_leaves():
    share = GpuShare("cpu")
    first, second = share.join("first", None), share.join("second", None)
    assert share.acquire(first, 0.3) is True
    got: list[float] = []
    waiter = threading.Thread(target=lambda: (share.acquire(second, 30.0),
                                              got.append(time.monotonic())))
    began = time.monotonic()
    waiter.start()
    waiter.join(10)
    assert got and got[0] - began >= 0.25, "the second holder did not wait for the bound"
    assert share.windows[0].holder == "first" and share.windows[0].revoked
    assert share.holder() == "second"
    share.release(first)  # a late give-back by a revoked holder changes nothing
    assert share.holder() == "second"
    share.leave(second)  # a job that ends holding it gives it back
    assert share.holder() is None and not share.windows[-1].revoked


def test_a_job_released_while_a_window_is_open_waits_for_it():
    share = GpuShare("cpu")
    holder = share.join("holder", None)
    share.acquire(holder, 30.0)
    joined: list[float] = []
    late = threading.Thread(target=lambda: (share.join("late", None),
                                            joined.append(time.monotonic())))
    late.start()
    time.sleep(0.3)
    assert not joined, "a job started inside another's timed window"
    share.release(holder)
    late.join(5)
    assert joined


def test_a_window_that_did_not_drain_is_shared():
    share = GpuShare("cpu", drain=lambda bound: False)
    tenant = share.join("t", None)
    share.join("another job", None)  # whose queued kernels did not drain
    assert share.acquire(tenant, 30.0) is False
    share.release(tenant)
    assert share.windows[0].exclusive is False


# ----------------------------------------------------------- the supervisor's protocol


_SCRATCH: list[str] = []


@pytest.fixture(autouse=True)
def _remove_scratch():
    yield
    while _SCRATCH:
        shutil.rmtree(_SCRATCH.pop(), ignore_errors=True)


def _scratch() -> Path:
    """A job's scratch folder straight under /tmp: bwrap makes the parents of a scratch
    folder under /tmp 0700 inside the sandbox, so beside the outputs it would hide them."""
    _SCRATCH.append(tempfile.mkdtemp(prefix="kgb-lock-test-"))
    return Path(_SCRATCH[-1])


def _start(share: GpuShare, out: Path, name: str, argv: list[str], wall_s: float,
           sandbox=None):
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o777)  # the container's worker (uid 65534) writes its outputs there
    request = SandboxRequest(
        argv=(sys.executable, *argv), out_dir=out, ro_paths=(FIXTURES,),
        env=(("PYTHONPATH", str(FIXTURES)), ("PYTHONDONTWRITEBYTECODE", "1")),
        tmp_dir=_scratch(), label=name, channel=True, share=share)
    return (sandbox or ProcessSandbox()).start(request,
                                               Limits(wall_time_s=wall_s, compile_time_s=0.0))


def _sandbox_or_skip(backend: str, tmp_path: Path):
    """The backend's sandbox (its caller closes it), or the test skipped where it is missing."""
    from kgb.sandbox import available_backends, create_sandbox

    reason = available_backends().get(backend, "not importable")
    if reason:
        pytest.skip(f"{backend} backend unavailable: {reason}")
    tmp_path.chmod(0o755)
    return create_sandbox(backend)


def _go_all(started: dict, stagger: float = 0.0) -> dict:
    results: dict = {}
    threads = []
    for name, start in started.items():
        thread = threading.Thread(target=lambda n=name, s=start: results.__setitem__(n, s.go()))
        thread.start()
        threads.append(thread)
        time.sleep(stagger)
    for thread in threads:
        thread.join(60)
    return results


def _record(result) -> P.ExecRecord:
    channel = result.channel or {}
    return P.ExecRecord(
        "process", result.returncode, result.timed_out, result.wall_s, False,
        channel=True, marks=tuple(P.Mark(m[0], m[1]) for m in channel.get("marks", ())),
        shared_gpu=True,
        windows=tuple(P.LockWindow(w[0], w[1], w[2], w[3]) for w in channel.get("windows", ())),
        frozen_s=channel.get("frozen_s"))


def _timed(case: str = "c0") -> P.TimedCase:
    return P.TimedCase(case=case, times_ms=(1.0,), warmup=1, fingerprints=("x",), kept=(0,))


def test_supervisor_grants_windows_one_at_a_time_and_reports_them(tmp_path):
    """Two honest workers on one shared GPU: each window is granted by the host through the
    supervisor's stdin, recorded on the supervisor's clock, and never overlaps the other's
    (host clock); both timings stand."""
    share = GpuShare("cpu")
    started = {n: _start(share, tmp_path / n, n, [str(FIXTURES / "honest.py"), "0.4", "0.2"],
                         30.0) for n in ("a", "b")}
    results = _go_all(started)
    for name, result in results.items():
        assert result.returncode == 0, (name, result.stderr)
        assert "answer T " in result.stdout and "@@kgb-lock@@" not in result.stdout
        record = _record(result)
        assert len(record.windows) == 1 and record.windows[0].exclusive
        assert outside_lock(_timed(), record) is None
    a, b = sorted(share.windows, key=lambda w: w.start)
    assert a.end <= b.start, "two timed windows overlapped"


@pytest.mark.parametrize("backend", ["process", pytest.param("docker", marks=pytest.mark.docker),
                                     pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_job_frozen_longer_than_its_timeout_still_passes_and_the_hog_times_out(tmp_path,
                                                                                 backend):
    """The attacker takes the lock and never gives it back: the host revokes it at the
    attacker's bound (its run time), the attacker's own job times out, and the honest job,
    frozen for longer than its whole time limit, still finishes in time: frozen seconds are
    not its time (wall_s leaves them out too). Under docker the freeze is the container's
    `pause`, under bwrap and process SIGSTOP of the sandbox's tree."""
    sandbox = _sandbox_or_skip(backend, tmp_path)
    share = GpuShare("cpu")
    try:
        honest = _start(share, tmp_path / "honest", "honest",
                        [str(FIXTURES / "honest.py"), "0.0", "1.5"], 2.0, sandbox)
        hog = _start(share, tmp_path / "hog", "hog", [str(FIXTURES / "hogs_lock.py")], 3.0,
                     sandbox)
        _frozen_past_its_limit(share, honest, hog)
    finally:
        sandbox.close()


def _frozen_past_its_limit(share: GpuShare, honest, hog) -> None:
    results: dict = {}
    t_honest = threading.Thread(target=lambda: results.__setitem__("honest", honest.go()))
    t_honest.start()
    _wait_for(lambda: len(share.windows) == 1)  # the honest job's own window has closed
    results["hog"] = hog.go()
    t_honest.join(60)
    victim, attacker = results["honest"], results["hog"]
    assert attacker.timed_out, attacker.stderr
    assert not victim.timed_out and victim.returncode == 0, victim.stderr
    frozen = (victim.channel or {}).get("frozen_s", 0.0)
    assert frozen >= 2.0, f"the honest job was frozen {frozen} s, less than its limit"
    assert victim.wall_s < 2.0 + 1.0 + 1.5  # its own time only
    # The bound (its run time) and its own deadline fall together: the host revoked the
    # window, or the supervisor killed the hog first and its window ended with it.
    hog_windows = _record(attacker).windows
    assert hog_windows and (hog_windows[0].revoked or hog_windows[0].end >= 2.9)
    assert [w.holder for w in share.windows] == ["honest", "hog"], share.windows


@pytest.mark.parametrize("fixture", ["times_unlocked.py", "forges_grant.py"])
def test_timing_outside_a_granted_window_costs_the_speedup_named(tmp_path, fixture):
    """A worker that times without the lock, or forges a grant (host words on its channel,
    the supervisor's live tag on its stdout), gets no window: its timing marks fall outside
    every granted window, so no speedup counts — named, never a verdict."""
    share = GpuShare("cpu")
    result = _go_all({"w": _start(share, tmp_path / "w", "w", [str(FIXTURES / fixture)],
                                  30.0)})["w"]
    assert result.returncode == 0, result.stderr
    record = _record(result)
    assert record.windows == () and share.windows == []
    reason = outside_lock(_timed(), record)
    assert reason is not None and "outside the GPU's timing lock" in reason
    if fixture == "forges_grant.py":  # its stdout is output, not the supervisor's word
        assert "@@kgb-lock@@ end" in result.stdout


def test_no_lock_without_a_shared_gpu(tmp_path):
    """A job on a GPU of its own (no share) is answered `N` at once and graded as before."""
    out = tmp_path / "solo"
    out.mkdir()
    request = SandboxRequest(
        argv=(sys.executable, str(FIXTURES / "honest.py"), "0.0", "0.0"), out_dir=out,
        ro_paths=(), env=(("PYTHONPATH", str(FIXTURES)),), tmp_dir=out, label="solo",
        channel=True)
    result = ProcessSandbox().start(request, Limits(wall_time_s=30.0)).go()
    assert result.returncode == 0 and "answer N " in result.stdout
    assert (result.channel or {}).get("windows") == []
    record = P.ExecRecord("process", 0, False, 1.0, False, channel=True,
                          marks=(P.Mark("start c0", 0.1), P.Mark("end c0", 0.2)))
    assert outside_lock(_timed(), record) is None


def test_window_grading_inside_shared_revoked_outside():
    marks = (P.Mark("start c0", 1.0), P.Mark("end c0", 2.0))

    def record(*windows: P.LockWindow) -> P.ExecRecord:
        return P.ExecRecord("process", 0, False, 3.0, False, channel=True, marks=marks,
                            shared_gpu=True, windows=windows)

    assert outside_lock(_timed(), record(P.LockWindow(0.5, 2.5, True))) is None
    assert "did not drain" in outside_lock(_timed(), record(P.LockWindow(0.5, 2.5, False)))
    assert "revoked" in outside_lock(_timed(), record(P.LockWindow(0.5, 2.5, True, True)))
    # a window that ends before the loop does, or two windows the loop straddles
    assert "outside" in outside_lock(_timed(), record(P.LockWindow(0.5, 1.5, True)))
    assert "outside" in outside_lock(_timed(), record(P.LockWindow(0.5, 1.5, True),
                                                      P.LockWindow(1.6, 2.5, True)))
    assert "outside" in outside_lock(_timed(), record(P.LockWindow(0.5, None, True)))


def test_exec_record_with_windows_round_trips(tmp_path):
    record = P.ExecRecord("process", 0, False, 1.0, False, shared_gpu=True,
                          windows=(P.LockWindow(0.1, 0.2, True),), frozen_s=1.5)
    path = tmp_path / P.EXEC_FILE
    path.write_text(__import__("json").dumps(P.to_json(record)))
    assert P.read(P.ExecRecord, path, 1 << 20) == record


def test_freeze_reaches_processes_the_worker_forks_while_freezing(tmp_path):
    """A forking tree: every process under the sandbox's root is stopped (SIGSTOP state)."""
    import psutil

    script = ("import subprocess, sys, time\n"
              "for _ in range(3): subprocess.Popen([sys.executable, '-c', "
              "'import time\\nwhile True: time.sleep(0.01)'])\n"
              "time.sleep(60)\n")
    child = Child([sys.executable, "-c", script], dict(os.environ), 4096, stdin_pipe=True)
    try:
        # every child past its exec: a vfork child stopped before it (CI, s31) leaves its parent
        # in the kernel's vfork wait, never in the stopped state (a freeze counts that parent
        # frozen, test_a_parent_held_in_vfork_counts_as_frozen; not this test's subject). Before
        # its exec a child's command line is its parent's, which holds the loop's text too (CI,
        # s32): the exec'ed program's own last argument is what tells.
        _wait_for(lambda: sum(_argv_tail(p).startswith("import time")
                              for p in psutil.Process(child.proc.pid).children(recursive=True)) >= 3)
        assert child.freeze()
        tree = [psutil.Process(child.proc.pid),
                *psutil.Process(child.proc.pid).children(recursive=True)]
        _wait_for(lambda: all(p.status() == psutil.STATUS_STOPPED for p in tree), 5)
        child.thaw()
        _wait_for(lambda: all(p.status() != psutil.STATUS_STOPPED for p in tree), 5)
    finally:
        child.wait(0.0)
        subprocess.run(["true"])


def _argv_tail(proc) -> str:
    try:
        argv = proc.cmdline()
    except Exception:  # gone, or a zombie: not a running loop
        return ""
    return argv[-1] if argv else ""


def test_a_parent_held_in_vfork_counts_as_frozen(tmp_path):
    """Attack: a worker that spawns a child held before its exec (posix_spawn's file action
    opens a FIFO nobody writes) leaves the parent in the kernel's vfork wait, a state that is
    never "stopped": every freeze of it failed, so each neighbour's timing window was shared
    and its baselines did not count. The parent cannot run before the child, stopped too, gets
    past its exec, and its SIGSTOP is pending: frozen. Thawed, the tree goes on."""
    import psutil

    fifo = tmp_path / "held"
    os.mkfifo(fifo)
    script = ("import os, sys\n"
              "os.posix_spawn(sys.executable, [sys.executable, '-c', 'pass'], dict(os.environ), "
              f"file_actions=[(os.POSIX_SPAWN_OPEN, 5, {str(fifo)!r}, os.O_RDONLY, 0)])\n"
              f"open({str(tmp_path / 'spawned')!r}, 'w').close()\n")
    child = Child([sys.executable, "-c", script], dict(os.environ), 4096, stdin_pipe=True)
    try:
        _wait_for(lambda: psutil.Process(child.proc.pid).children()
                  and psutil.Process(child.proc.pid).status() == psutil.STATUS_DISK_SLEEP)
        started = time.monotonic()
        assert child.freeze()  # before: False after FREEZE_BOUND_S, the parent never stopped
        assert time.monotonic() - started < 0.5
        child.thaw()
        with open(fifo, "w"):  # the held child gets past its exec: the parent returns
            pass
        _wait_for(lambda: (tmp_path / "spawned").exists(), 10)
    finally:
        child.wait(0.0)


def test_a_tree_whose_processes_wake_each_other_is_frozen_whole(tmp_path):
    """Attack: two processes SIGCONT each other without pause, so one stopped before its
    sibling may be woken by it. Stopping each pid once (the first version of Child.freeze)
    can lose that race — not reproduced on the 2-core dev machine, where it held too — so the
    freeze re-stops until every process shows stopped; none makes progress while frozen."""
    pids = tmp_path / "pids"
    child = Child([sys.executable, str(FIXTURES / "wakes_itself.py"), str(pids)],
                  dict(os.environ), 4096, stdin_pipe=True)
    try:
        _wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2)
        counters = [Path(f"{pids}.{pid}") for pid in pids.read_text().split()]
        _wait_for(lambda: all(_count(c) > 0 for c in counters))
        assert child.freeze() is True
        time.sleep(0.2)  # a write in flight lands
        before = [_count(c) for c in counters]
        time.sleep(0.5)
        assert [_count(c) for c in counters] == before, "a frozen process was woken and ran"
        child.thaw()
        _wait_for(lambda: all(_count(c) > b for c, b in zip(counters, before)))
    finally:
        child.wait(0.0)


def test_the_neighbour_watch_counts_the_runs_co_tenants_as_kgbs_own(tmp_path):
    """On a shared GPU the job's watch is given the run's jobs folder (kgb.runner.execute):
    another job's worker of the same run — under docker no descendant of kgb, known only by
    its command line — is kgb's frozen co-tenant, not a neighbour; with one job per GPU it is
    still named (the watch is given the job's own folder)."""
    from kgb.bench.neighbours import is_jobs_own

    other = tmp_path / "jobs" / "other.task"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)",
                             "-m", "kgb.worker", str(other)])
    try:
        _wait_for(lambda: "kgb.worker" in " ".join(__import__("psutil").Process(
            proc.pid).cmdline()))
        assert is_jobs_own(proc.pid, str(tmp_path / "jobs") + os.sep, ()) is True
        assert is_jobs_own(proc.pid, str(tmp_path / "jobs" / "mine.task"), ()) is False
    finally:
        proc.kill()
        proc.wait()


def test_speed_grading_on_a_shared_gpu_counts_only_exclusive_windows():
    """judge_speed on the honest evidence of tests/test_speed_rules.py, now from a shared GPU:
    inside an exclusive window it counts; outside any window, no speedup, named, no verdict;
    a window the events do not explain is still D304 in an exclusive window, and named, not
    ruled on, in a window the GPU did not drain for (as beside a neighbour)."""
    from dataclasses import replace

    from test_speed_rules import KERNEL_MS, OVERHEAD_MS, PLAN, REPS, honest

    from kgb.runner.speed import judge_speed

    execution, worker, judge = honest()
    end = execution.marks[1].t
    inside = replace(execution, shared_gpu=True, windows=(P.LockWindow(4.9, end + 0.1, True),))
    result = judge_speed(PLAN, inside, worker, judge)
    assert result.violation is None and result.counted and result.unchecked == ()
    outside = replace(inside, windows=(P.LockWindow(0.1, 0.2, True),))
    result = judge_speed(PLAN, outside, worker, judge)
    assert result.violation is None and not result.counted
    assert any("outside the GPU's timing lock" in u for u in result.unchecked)
    stretched = 5.0 + REPS * (KERNEL_MS + OVERHEAD_MS + 5.0) / 1e3
    marks = (P.Mark("start c0", 5.0), P.Mark("end c0", stretched))
    busy = replace(inside, marks=marks, windows=(P.LockWindow(4.9, stretched + 0.1, True),))
    assert judge_speed(PLAN, busy, worker, judge).violation[0].id == "D304"
    undrained = replace(busy, windows=(P.LockWindow(4.9, stretched + 0.1, False),))
    result = judge_speed(PLAN, undrained, worker, judge)
    assert result.violation is None and not result.counted
    assert any("had not drained" in u for u in result.unchecked)


# The judge on a shared GPU (kgb/judge/gpu_lock.py, kgb/runner/judge_pool.py): it holds the
# lock only while it times, and is a tenant frozen like a job during other holders' windows.
FAKE_JUDGE = """
import sys, time
request = sys.stdin.readline()
open(sys.argv[1], "w").write("judging")
time.sleep(float(sys.argv[2]))  # its references and comparisons: no lock
print("lock +", flush=True)
open(sys.argv[1], "w").write(sys.stdin.readline().strip())
print("lock -", flush=True)
print("ok", flush=True)
"""


class _Box:
    def __init__(self) -> None:
        self.events: list[str] = []

    def freeze(self) -> bool:
        self.events.append("freeze")
        return True

    def thaw(self) -> None:
        self.events.append("thaw")

    def say(self, line: bytes) -> None:
        pass


def _fake_judge(tmp_path: Path, before_lock_s: float):
    """A JudgeProcess whose process speaks the judge's protocol (a real `kgb.judge` times
    nothing on the CPU)."""
    import queue

    from kgb.runner.judge_pool import JudgeProcess

    judge = JudgeProcess.__new__(JudgeProcess)
    judge.device, judge.jobs = "cuda:0", 0
    judge._proc = subprocess.Popen(
        [sys.executable, "-c", FAKE_JUDGE, str(tmp_path / "said"), str(before_lock_s)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
    judge._answers = queue.SimpleQueue()
    threading.Thread(target=judge._read, daemon=True).start()
    return judge


def test_the_judge_holds_the_lock_only_to_time_and_freezes_the_jobs_meanwhile(tmp_path):
    share = GpuShare("cpu")
    job_box = _Box()
    job = share.join("job", job_box)
    judge = _fake_judge(tmp_path, 0.0)
    request = P.JudgeRequest(job_dir=str(tmp_path), task_dir="t", device="cuda:0", cases=(),
                             layout_inputs=(), seed_input=None, claims=())
    try:
        assert judge.judge(request, 30.0, threading.Event(), share) == "ok"
    finally:
        judge.close(kill=True)
    assert (tmp_path / "said").read_text() == "granted exclusive"
    assert [w.holder for w in share.windows] == ["judge t"] and share.windows[0].exclusive
    assert job_box.events == ["freeze", "thaw"]  # frozen for the judge's timing alone
    summary = Shares((("cuda:0", share),)).summary()["cuda:0"]  # timing_lock.json
    assert summary["windows"] == summary["exclusive"] == 1 and summary["revoked"] == 0
    assert list(summary["by_holder"]) == ["judge"]
    assert summary["by_holder"]["judge"]["windows"] == 1
    assert [row[0] for row in summary["longest"]] == ["judge t"]  # the holder named
    assert share.holder() is None and share._tenants == [job]  # the judge left
    # without a shared GPU the host answers at once and nothing is held
    judge = _fake_judge(tmp_path, 0.0)
    try:
        assert judge.judge(request, 30.0, threading.Event()) == "ok"
    finally:
        judge.close(kill=True)
    assert (tmp_path / "said").read_text() == "none"


def test_the_judge_is_frozen_during_a_jobs_timing_window(tmp_path):
    import psutil

    share = GpuShare("cpu")
    job = share.join("job", _Box())
    judge = _fake_judge(tmp_path, 1.5)
    request = P.JudgeRequest(job_dir=str(tmp_path), task_dir="t", device="cuda:0", cases=(),
                             layout_inputs=(), seed_input=None, claims=())
    answer: list[str] = []
    runner = threading.Thread(target=lambda: answer.append(
        judge.judge(request, 30.0, threading.Event(), share)))
    try:
        runner.start()
        _wait_for(lambda: (tmp_path / "said").exists())  # the judge joined and is judging
        assert share.acquire(job, 30.0) is True  # a job's timing window
        assert psutil.Process(judge.pid).status() == psutil.STATUS_STOPPED
        time.sleep(2.0)  # past the judge's own 1.5 s: frozen, it cannot have asked
        assert (tmp_path / "said").read_text() == "judging"
        share.release(job)
        runner.join(20)
    finally:
        judge.close(kill=True)
    assert answer == ["ok"] and (tmp_path / "said").read_text() == "granted exclusive"


def test_the_judges_end_of_the_lock_fails_closed_and_holds_one_window():
    import io

    from kgb.judge import gpu_lock

    for reply, alone, told in (("granted exclusive", True, "lock +\nlock -\n"),
                               ("granted shared", False, "lock +\nlock -\n"),
                               ("none", True, "lock +\n"),
                               ("", False, "lock +\n")):  # the host is gone: no baseline
        answers = io.StringIO()
        gpu_lock.connect(answers, io.StringIO(reply + "\n" if reply else ""))
        try:
            with gpu_lock.Window() as window:
                assert window.take() is alone, reply
                assert window.take() is alone, reply  # held: not asked again
        finally:
            gpu_lock._channel = None
        assert answers.getvalue() == told, reply
    with gpu_lock.Window() as window:  # a judge called in process asks nothing
        assert window.take() is True


def test_a_tenant_that_leaves_frozen_is_thawed_and_one_that_left_is_never_frozen():
    """The judge outlives its judgement: it answers, another job's window stops it, the host
    reads the answer and the judge leaves the GPU stopped — the holder's release no longer
    counts it, and the pooled judge would hang its next job. Leaving thaws it; a tenant that
    has left is never stopped again (a grant racing its leaving)."""
    share = GpuShare("cpu")
    judge_box, holder = _Box(), share.join("job", None)
    judge = share.join("judge t", judge_box)
    assert share.acquire(holder, 30.0) is True and judge_box.events == ["freeze"]
    share.leave(judge)  # frozen, it leaves: thawed at once
    assert judge_box.events == ["freeze", "thaw"]
    share.release(holder)
    assert judge_box.events == ["freeze", "thaw"]  # not thawed twice
    assert judge.freeze() is True and judge_box.events == ["freeze", "thaw"]


def test_a_grant_with_no_other_tenant_does_not_wait_for_the_drain():
    drained: list[float] = []
    share = GpuShare("cuda:0", drain=lambda bound: drained.append(bound) or True)
    alone = share.join("alone", None)
    assert share.acquire(alone, 30.0) is True and drained == []
    share.release(alone)
    other = share.join("other", _Box())
    assert share.acquire(alone, 30.0) is True and len(drained) == 1  # the other's work drains
    share.release(alone)
    share.leave(other)
    undrained = GpuShare("cuda:0", drain=lambda bound: False)
    holder, _ = undrained.join("holder", None), undrained.join("other", _Box())
    assert undrained.acquire(holder, 30.0) is False  # fail closed as before


@pytest.mark.parametrize("backend", ["process", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_held_start_is_a_tenant_from_its_start_frozen_through_windows_before_go(tmp_path,
                                                                                   backend):
    """A held worker may ready its GPU (the CUDA context, the profiler's ~4 s) while the job
    before it runs, only because the host makes it a tenant of the GPU from its start: another
    job's window freezes it while held — its count stands still — and the seconds it spent
    frozen while held are not taken off its own run's wall. It is told so (KGB_HOLD_DEVICE);
    a start that is not held (Sandbox.run) is not a tenant before it runs and is not told."""
    sandbox = _sandbox_or_skip(backend, tmp_path)
    share = GpuShare("cpu")
    counter = tmp_path / "held" / "n"
    try:
        timer = _start(share, tmp_path / "timer", "timer",
                       [str(FIXTURES / "honest.py"), "1.0", "0.0"], 30.0, sandbox)
        ready = _start(share, tmp_path / "held", "held",
                       [str(FIXTURES / "readies_while_held.py"), str(counter)], 30.0, sandbox)
        assert len(share._tenants) == 2, "a held start joins its GPU before `go`"
        live = backend == "process"  # bwrap's output folder is a tmpfs copied out at the end
        if live:
            _wait_for(lambda: _count(counter) > 0)  # readying, held
        results: dict = {}
        thread = threading.Thread(target=lambda: results.__setitem__("timer", timer.go()))
        thread.start()
        _wait_for(lambda: share.holder() == "timer")
        time.sleep(0.3)  # a count in flight lands
        at = _count(counter)
        time.sleep(0.5)
        assert share.holder() == "timer" and _count(counter) == at, \
            "a held tenant ran inside another job's window"
        thread.join(60)
        if live:
            _wait_for(lambda: _count(counter) > at)  # thawed, still held, readying again
        held_tenant = next(t for t in share._tenants if t.name == "held")
        assert held_tenant.frozen_s >= 0.5
        done = ready.go()
        assert done.returncode == 0 and "hold_device 1" in done.stdout, done.stderr
        assert done.wall_s < 5.0  # its own run, not the held seconds frozen
        assert not share._tenants, "every tenant left"
        assert results["timer"].returncode == 0
        unheld = tmp_path / "unheld"
        unheld.mkdir()
        unheld.chmod(0o777)
        plain = sandbox.run(SandboxRequest(
            argv=(sys.executable, str(FIXTURES / "readies_while_held.py"), str(unheld / "n")),
            out_dir=unheld, ro_paths=(FIXTURES,), env=(("PYTHONPATH", str(FIXTURES)),),
            tmp_dir=_scratch(), label="unheld", channel=True, share=share),
            Limits(wall_time_s=30.0, compile_time_s=0.0))
        assert plain.returncode == 0 and "hold_device -" in plain.stdout, plain.stderr
    finally:
        sandbox.close()


def test_a_tenant_attached_inside_a_window_is_frozen_at_once(tmp_path):
    """The race `attach` closes: a held start joins before its sandbox exists, a window opens,
    then the sandbox appears — it is stopped at once, not left running through the window;
    attached outside a window it runs, and the next window stops it."""
    counter = tmp_path / "n"
    share = GpuShare("cpu")
    holder = share.join("holder", None)
    late = share.join("late", None)
    assert share.acquire(holder, 30.0) is True  # nothing of `late` to freeze yet
    child = Child([sys.executable, "-c", COUNTER, str(counter)], dict(os.environ), 4096,
                  stdin_pipe=True)
    try:
        share.attach(late, child)
        assert late.frozen_since is not None
        time.sleep(1.0)
        assert _count(counter) == 0, "attached inside a window, it ran"
        share.release(holder)
        _wait_for(lambda: _count(counter) > 0)
        assert share.acquire(holder, 30.0) is True
        assert late.frozen_since is not None  # the next window stops it as any tenant
        share.release(holder)
    finally:
        share.leave(late)
        child.wait(0.0)


def test_a_freeze_spanning_go_credits_the_job_only_its_own_seconds():
    """A tenant held since its start may be frozen when its `go` comes: `started` splits that
    freeze, so the thaw's `frozen` credit (the supervisor moves the run's deadline and wall by
    it) covers only the seconds after `go`; the seconds before are returned, not the job's."""
    said: list[bytes] = []

    class Box:
        def freeze(self) -> bool:
            return True

        def thaw(self) -> None:
            pass

        def say(self, line: bytes) -> None:
            said.append(line)

    share = GpuShare("cpu")
    holder = share.join("holder", None)
    held = share.join("held", None)
    share.attach(held, Box())
    assert share.acquire(holder, 30.0) is True and held.frozen_since is not None
    time.sleep(0.4)
    before = held.started()  # `go` while frozen
    assert 0.35 <= before < 2.0
    time.sleep(0.2)
    share.release(holder)
    credit = float(said[-1].split()[1])
    assert 0.15 <= credit < before, (credit, before)  # the seconds after `go` only
    assert abs(held.frozen_s - (before + credit)) < 1e-6


def test_timing_lock_json_keeps_each_window_in_grant_order_with_the_holders_queued():
    """timing_lock.json's timeline: when each holder asked, was granted and gave the lock
    back, its freeze and drain, and how many holders were already waiting at its release —
    what says whether grants follow one another (each then thaws the others only for the
    next to freeze them again)."""
    drains = []
    share = GpuShare("cpu", drain=lambda bound_s: drains.append(bound_s) or True)
    first, second = share.join("job a", _Box()), share.join("job b", _Box())
    assert share.acquire(first, 30.0) is True
    granted = threading.Event()
    waiter = threading.Thread(target=lambda: share.acquire(second, 30.0) and granted.set())
    waiter.start()
    deadline = time.monotonic() + 10
    while share._waiters == 0 and time.monotonic() < deadline:  # b is queued behind a
        time.sleep(0.01)
    time.sleep(0.05)
    share.release(first)
    assert granted.wait(10)
    share.release(second)
    waiter.join()
    summary = Shares((("cuda:0", share),)).summary()["cuda:0"]
    columns, rows = summary["timeline_columns"], summary["timeline"]
    a, b = (dict(zip(columns, row)) for row in rows)
    assert (a["holder"], a["waiting_at_release"], b["waiting_at_release"]) == ("job", 1, 0)
    assert a["asked"] == 0.0 and a["asked"] <= a["granted"] <= a["ended"]
    assert b["asked"] < a["ended"] <= b["granted"] <= b["ended"]  # it asked while a held
    assert len(drains) == 2  # each grant with another tenant in flight drained


def _queue_behind(share, holder, waiter, cancel=None):
    """`waiter` asks for the lock while `holder` has it; returns its thread and grant list."""
    got: list = []
    thread = threading.Thread(target=lambda: got.append(share.acquire(waiter, 30.0, cancel)))
    thread.start()
    deadline = time.monotonic() + 10
    while share._waiters == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    return thread, got


def test_a_release_with_a_holder_queued_keeps_the_others_frozen_for_its_window():
    """Holder b queued behind a: a's release thaws nobody (b would freeze them again at
    once); a itself is frozen for b's window and the GPU drained for b as for any grant;
    the bystander is frozen once and thawed once, when the last window ends."""
    drains = []
    share = GpuShare("cpu", drain=lambda bound_s: drains.append(bound_s) or True)
    boxes = {name: _Box() for name in ("a", "b", "bystander")}
    tenants = {name: share.join(name, box) for name, box in boxes.items()}
    assert share.acquire(tenants["a"], 30.0) is True
    thread, got = _queue_behind(share, tenants["a"], tenants["b"])
    share.release(tenants["a"])
    thread.join(10)
    assert got == [True] and share.holder() == "b"
    assert boxes["bystander"].events == ["freeze"]  # still frozen: no thaw between windows
    assert boxes["b"].events == ["freeze", "thaw"]  # frozen behind a, thawed at its grant
    assert boxes["a"].events == ["freeze"]  # frozen anew for b's window
    assert len(drains) == 2
    share.release(tenants["b"])
    assert boxes["bystander"].events == ["freeze", "thaw"]
    assert boxes["a"].events == ["freeze", "thaw"] and boxes["b"].events == ["freeze", "thaw"]
    assert [w.waiting for w in share.windows] == [1, 0]


def test_the_frozen_are_thawed_when_the_queued_holder_gives_up():
    """b's job ends while it waits behind a: a's release left the others frozen for b, and
    b's giving up thaws them (nothing would otherwise)."""
    share = GpuShare("cpu", drain=lambda bound_s: True)
    boxes = {name: _Box() for name in ("a", "b", "bystander")}
    tenants = {name: share.join(name, box) for name, box in boxes.items()}
    assert share.acquire(tenants["a"], 30.0) is True
    thread, got = _queue_behind(share, tenants["a"], tenants["b"])
    tenants["b"].left = True  # its job ended; b sees it at its next poll, after a's release
    share.release(tenants["a"])  # (at once) still counts b queued
    thread.join(10)
    assert got == [None] and share.holder() is None
    assert share.windows[0].waiting == 1  # the release did leave them frozen for b
    assert boxes["bystander"].events == ["freeze", "thaw"]
    assert boxes["b"].events == ["freeze", "thaw"]


def test_two_holders_asking_in_turn_keep_the_others_frozen_for_a_bounded_chain(monkeypatch):
    """Two jobs that ask for the lock again and again would hand it to each other while the
    rest stay frozen: after CHAIN_MAX windows in a row the others are thawed anyway."""
    from kgb.runner import gpu_share

    monkeypatch.setattr(gpu_share, "CHAIN_MAX", 3)
    share = GpuShare("cpu", drain=lambda bound_s: True)
    bystander = _Box()
    a, b = share.join("a", _Box()), share.join("b", _Box())
    share.join("bystander", bystander)
    assert share.acquire(a, 30.0) is True
    holder, other = a, b
    for release in range(1, 5):
        thread, got = _queue_behind(share, holder, other)
        share.release(holder)
        thread.join(10)
        assert got == [True]
        thawed = bystander.events.count("thaw")
        assert thawed == (1 if release == 4 else 0), (release, bystander.events)
        holder, other = other, holder
    share.release(holder)
    assert bystander.events.count("thaw") == 2 and share.holder() is None


class _StateBox:
    """A box that knows whether it is frozen now (freeze/thaw must alternate)."""

    def __init__(self) -> None:
        self.frozen, self.errors = False, []

    def freeze(self) -> bool:
        if self.frozen:
            self.errors.append("frozen twice")
        self.frozen = True
        return True

    def thaw(self) -> None:
        if not self.frozen:
            self.errors.append("thawed while running")
        self.frozen = False

    def say(self, line: bytes) -> None:
        pass


def test_many_holders_asking_leaving_and_giving_up_at_random_keep_the_lock_sound():
    """Five tenants ask, hold, give back, give up and leave at random (seeded), with windows
    back to back: inside every window its holder runs and each other tenant still in flight
    is frozen, no two windows overlap, freezes and thaws alternate, and at the end no one is
    left frozen (the waiter that gives up: test_the_frozen_are_thawed_when_the_queued_holder_
    gives_up)."""
    import random

    share = GpuShare("cpu", drain=lambda bound_s: True)
    boxes = [_StateBox() for _ in range(5)]
    tenants = [share.join(f"t{i}", box) for i, box in enumerate(boxes)]
    problems: list[str] = []

    def worker(i: int) -> None:
        rng = random.Random(i)
        for _ in range(40):
            cancel = threading.Event()
            if rng.random() < 0.1:
                cancel.set()  # a run that stops while it waits
            granted = share.acquire(tenants[i], 30.0, cancel)
            if granted:
                if boxes[i].frozen:
                    problems.append(f"t{i} frozen inside its own window")
                for j, box in enumerate(boxes):
                    if j != i and not tenants[j].left and not box.frozen:
                        problems.append(f"t{j} running inside t{i}'s window")
                time.sleep(rng.random() * 0.003)
                share.release(tenants[i])
            time.sleep(rng.random() * 0.002)
        share.leave(tenants[i])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a holder never got the lock"
    assert not problems, problems[:5]
    assert not [e for box in boxes for e in box.errors]
    assert not any(box.frozen for box in boxes)
    windows = sorted(share.windows, key=lambda w: w.start)
    assert all(a.end <= b.start for a, b in zip(windows, windows[1:]))
    assert any(w.waiting for w in windows)  # some windows were back to back
