"""The trusted baseline-timing store (kgb.runner.baseline_cache) and the judge's use of it.

A poisoned baseline time buys a speedup (threat 36), so each way an entry could come from
someone but kgb — a group-writable file or folder, a foreign owner, a link, a corrupt, huge or
re-keyed file — must be ignored (and said), and nothing measured beside a neighbour or on a
throttled GPU may be kept. The judge's side is checked with a fake timer: it times only what
the store did not give it. CPU only: NVML and torch's CUDA are replaced where needed."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from kgb import protocol as P
from kgb.runner import baseline_cache as BC
from kgb.runner.baseline_cache import BaselineCache, BaselineStore, Entry

CASE = P.CaseSpec("c0", "large", {"M": 64, "N": 32}, "float32", "standard", "contiguous",
                  (P.CallSpec(P.CallKind.PRIMARY, 7),))
OTHER = P.CaseSpec("c1", "tiny", {"M": 3, "N": 5}, "float16", "standard", "contiguous",
                   (P.CallSpec(P.CallKind.PRIMARY, 9),))
SOFTWARE = {"torch": "2.11.0", "cuda": "13.0", "cudnn": 91000, "triton": "3.6.0",
            "python": "3.12.3", "timing": "abc"}
DEVICE = {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1234", "pci": "00000000:19:00.0",
          "driver": "580.159.04", "app_sm_mhz": 1980, "app_mem_mhz": 2619,
          "max_sm_mhz": 1980, "max_mem_mhz": 2619, "power_limit_mw": 700000, "ecc": 1}
CLEAN = P.Conditions(sm_clock_mhz=(1980, 1980), mem_clock_mhz=(2619, 2619))


def key(**changes) -> BC.Key:
    base = BC.case_key(SOFTWARE, DEVICE, "activation.gelu", "f" * 64, CASE, "eager", False)
    return dict(base, **changes)


def store(tmp_path: Path) -> BaselineStore:
    root = tmp_path / "store"
    root.mkdir(mode=0o700, exist_ok=True)
    return BaselineStore(root)


ENTRY = Entry((0.25, 0.26, 0.24), False, "2026-11-27T05:00:00+00:00")


# ------------------------------------------------------------------ keying
def test_every_part_of_the_key_changes_the_entry(tmp_path):
    s = store(tmp_path)
    s.put(key(), ENTRY)
    assert s.get(key()) == ENTRY
    changed = [key(device=dict(DEVICE, uuid="GPU-other")),
               key(device=dict(DEVICE, app_sm_mhz=1410)),  # clocks locked lower
               key(device=dict(DEVICE, power_limit_mw=400000)),
               key(software=dict(SOFTWARE, torch="2.12.0")),
               key(software=dict(SOFTWARE, triton="3.7.0")),
               key(software=dict(SOFTWARE, cuda="12.8")),
               key(software=dict(SOFTWARE, timing="def")),  # kgb's timing loop changed
               key(task="activation.relu"), key(task_files="0" * 64),
               key(case="c1"), key(dims={"M": 64, "N": 33}), key(dtype="bfloat16"),
               key(kind="compile"), key(graph=True)]
    for other in changed:
        assert s.get(other) is None, other


def test_a_changed_task_misses_and_its_solution_does_not_matter(tmp_path):
    task = tmp_path / "task"
    task.mkdir()
    for name, text in (("task.toml", "id='x'"), ("reference.py", "def reference(x): return x"),
                       ("inputs.py", "def make_inputs(): pass"), ("solution.py", "# a")):
        (task / name).write_text(text)
    before = BC.files_digest(task)
    (task / "solution.py").write_text("# b")
    assert BC.files_digest(task) == before
    (task / "reference.py").write_text("def reference(x): return x * 2")
    assert BC.files_digest(task) != before
    (task / "reference.py").write_text("def reference(x): return x")
    (task / "inputs.py").write_text("def make_inputs(): return 1")
    assert BC.files_digest(task) != before


def test_the_timing_method_is_a_digest_of_the_timing_code():
    assert BC.timing_method() == BC.timing_method()
    assert len(BC.timing_method()) == 24


# ------------------------------------------------------------------ trust
def test_a_group_or_world_writable_file_is_ignored(tmp_path):
    s = store(tmp_path)
    s.put(key(), ENTRY)
    path = s.path(key())
    os.chmod(path, 0o620)
    assert "writable by its group" in str(s.get(key()))
    os.chmod(path, 0o602)
    assert "writable by its group or by others" in str(s.get(key()))
    os.chmod(path, 0o600)
    assert s.get(key()) == ENTRY


def test_a_group_writable_folder_above_the_file_is_ignored(tmp_path):
    s = store(tmp_path)
    s.put(key(), ENTRY)
    folder = s.path(key()).parent
    os.chmod(folder, 0o770)
    assert "writable by its group" in str(s.get(key()))
    assert "writable" in str(s.put(key(), ENTRY))  # nor written into
    os.chmod(folder, 0o700)
    os.chmod(s.root, 0o777)
    assert str(s.root) in str(s.get(key()))


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_a_file_or_folder_owned_by_another_user_is_ignored(tmp_path):
    s = store(tmp_path)
    s.put(key(), ENTRY)
    os.chown(s.path(key()), 65534, 65534)
    assert "owned by uid 65534" in str(s.get(key()))
    os.chown(s.path(key()), 0, 0)
    os.chown(s.path(key()).parent, 65534, 65534)
    assert "owned by uid 65534" in str(s.get(key()))


def test_a_link_in_the_store_is_not_followed(tmp_path):
    s = store(tmp_path)
    elsewhere = tmp_path / "planted.json"
    elsewhere.write_text(json.dumps({"key": key(), "times_ms": [1000.0], "graph": False,
                                     "measured_at": "2026-11-27T05:00:00+00:00"}))
    os.chmod(elsewhere, 0o600)
    s.path(key()).parent.mkdir(mode=0o700)
    s.path(key()).symlink_to(elsewhere)
    assert "symbolic link" in str(s.get(key()))


@pytest.mark.parametrize("content,why", [
    (b'{"key": {"store": 1', "not valid JSON"),  # cut short
    (b"\xff\xfe", "not UTF-8"),
    (b"[" * 100 + b"]" * 100, "nested deeper"),
    (b" " * (BC.ENTRY_MAX_BYTES + 10), "cap"),  # huge: refused unread
    (json.dumps({"key": 1}).encode(), "not a baseline entry"),
])
def test_a_corrupt_or_huge_file_is_ignored(tmp_path, content, why):
    s = store(tmp_path)
    s.put(key(), ENTRY)
    s.path(key()).write_bytes(content)
    problem = s.get(key())
    assert isinstance(problem, str) and why in problem


@pytest.mark.parametrize("times", [[], [float("nan")], [-1.0], [0.0], ["0.1"], [True],
                                   [0.1] * (BC.MAX_TIMES + 1)])
def test_impossible_times_are_refused(tmp_path, times):
    s = store(tmp_path)
    s.put(key(), ENTRY)
    data = {"key": key(), "times_ms": times, "graph": False,
            "measured_at": "2026-11-27T05:00:00+00:00"}
    s.path(key()).write_text(json.dumps(data))
    assert isinstance(s.get(key()), str)


def test_an_entry_copied_under_another_key_is_refused(tmp_path):
    """The file name is only the key's digest: the full key inside must match too."""
    s = store(tmp_path)
    s.put(key(task="activation.relu"), Entry((9.0,), False, ENTRY.measured_at))
    target = s.path(key())
    target.parent.mkdir(mode=0o700, exist_ok=True)
    target.write_bytes(s.path(key(task="activation.relu")).read_bytes())
    os.chmod(target, 0o600)
    assert "key differs" in str(s.get(key()))


def test_concurrent_writers_leave_one_whole_entry(tmp_path):
    s = store(tmp_path)
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            for j in range(20):
                problem = s.put(key(), Entry((0.1 + i, 0.2 + j), False, ENTRY.measured_at))
                assert problem is None, problem
                assert isinstance(s.get(key()), Entry)  # never half-written
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert isinstance(s.get(key()), Entry)
    assert [p.name for p in s.path(key()).parent.iterdir()] == [s.path(key()).name]
    assert oct(s.path(key()).stat().st_mode & 0o777) == oct(0o600)


# ------------------------------------------------------------------ the run's use of it
def cache(tmp_path: Path) -> BaselineCache:
    return BaselineCache(store(tmp_path), SOFTWARE, {0: DEVICE, 1: "NVML failed: gone"})


def judged(*baselines: P.Baseline) -> P.JudgeResult:
    return P.JudgeResult((), baselines=baselines)


def task_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "task"
    folder.mkdir(exist_ok=True)
    (folder / "reference.py").write_text("def reference(x): return x")
    return folder


def test_measured_baselines_are_kept_and_found_by_the_next_run(tmp_path):
    c = cache(tmp_path)
    keys = c.keys("t.x", task_folder(tmp_path), (CASE, OTHER), ("c0", "c1"), ("c1",), "all",
                  "cuda:0")
    assert set(keys) == {("c0", "eager"), ("c0", "compile"), ("c1", "eager"), ("c1", "compile")}
    assert keys[("c1", "eager")]["graph"] is True and keys[("c0", "eager")]["graph"] is False
    assert c.lookup(keys) == ()
    written = c.commit(keys, judged(P.Baseline("c0", (0.4, 0.5), (0.3,), None, 0.1),
                                    P.Baseline("c1", (0.2,), (), "inductor failed", 0.1,
                                               graph=True)), CLEAN)
    assert written == 3  # c1's torch.compile failed: nothing of it is kept
    again = cache(tmp_path)
    found = {(h.case, h.kind): h for h in again.lookup(keys)}
    assert set(found) == {("c0", "eager"), ("c0", "compile"), ("c1", "eager")}
    assert found[("c0", "eager")].times_ms == (0.4, 0.5)
    assert found[("c1", "eager")].graph is True
    assert again.hits == 3 and again.notes == []


def test_a_baseline_another_job_of_the_run_is_measuring_is_waited_for_not_measured_again(
        tmp_path):
    """Single flight (kgb.runner.run_memo.Flights, one per run, a batch's members sharing
    it): the first job of a task claims its missing baselines; a second job of the same task
    waits (holding no claim) and gets the stored figures; one whose claimant stored nothing
    (a throttled GPU, a failed judge) claims and measures them itself."""
    from kgb.runner.run_memo import Flights

    c, flights = cache(tmp_path), Flights()
    keys = c.keys("t.x", task_folder(tmp_path), (CASE,), ("c0",), (), "all", "cuda:0")
    first: list[str] = []
    assert c.lookup_or_claim(keys, first, flights, threading.Event()) == ()
    assert len(first) == 2  # eager and torch.compile are the first job's to measure
    second: list[str] = []
    got: list = []
    member = cache(tmp_path)  # another member of the batch: its own cache, the same flights
    waiter = threading.Thread(target=lambda: got.append(
        member.lookup_or_claim(keys, second, flights, threading.Event())))
    waiter.start()
    time.sleep(0.3)
    assert waiter.is_alive() and not got  # waiting for the first job's figures
    c.commit(keys, judged(P.Baseline("c0", (0.4,), (0.3,), None, 0.1)), CLEAN)
    flights.release(first)
    waiter.join(5)
    assert {(h.case, h.kind) for h in got[0]} == {("c0", "eager"), ("c0", "compile")}
    assert second == [] and flights.waited == 1 and first == []

    other = c.keys("t.y", task_folder(tmp_path), (CASE,), ("c0",), (), "eager", "cuda:0")
    third: list[str] = []
    assert c.lookup_or_claim(other, third, flights, threading.Event()) == ()
    assert len(third) == 1
    fourth: list[str] = []
    later = threading.Thread(target=lambda: c.lookup_or_claim(other, fourth, flights,
                                                              threading.Event()))
    later.start()
    time.sleep(0.2)
    flights.release(third)  # ended with nothing stored
    later.join(5)
    assert not later.is_alive() and len(fourth) == 1  # its own to measure now
    fifth: list[str] = []
    began = time.monotonic()  # a claimant that never ends is waited for at most wait_s
    assert c.lookup_or_claim(other, fifth, flights, threading.Event(), wait_s=0.3) == ()
    assert 0.3 <= time.monotonic() - began < 3 and fifth == []  # claimed by the fourth still


def test_the_runs_loop_cost_is_kept_per_device_and_case_and_only_as_measured():
    """kgb.runner.run_memo.LoopCosts: the empty loop's cost a judge measured itself, per
    device and case shape (not seed); none from a baseline with an error (a shared GPU) or
    one that was itself given."""
    from kgb.runner.run_memo import LoopCosts

    loops = LoopCosts()
    assert loops.lookup("cuda:0", "t.x", (CASE, OTHER), ("c0", "c1")) == ()
    loops.commit("cuda:0", "t.x", (CASE, OTHER), judged(
        P.Baseline("c0", (0.4,), (), None, 0.02),
        P.Baseline("c1", error="timed while the GPU was not the judge's alone")))
    loops.commit("cuda:0", "t.x", (CASE,), judged(
        P.Baseline("c0", (0.4,), (), None, 0.5, overhead_cached=True)))  # not overwritten
    assert loops.lookup("cuda:0", "t.x", (CASE, OTHER), ("c0", "c1")) == \
        (P.CachedLoop("c0", 0.02),)
    reseeded = dataclasses.replace(CASE, calls=(P.CallSpec(P.CallKind.PRIMARY, 8),))
    assert loops.lookup("cuda:0", "t.x", (reseeded,), ("c0",)) == (P.CachedLoop("c0", 0.02),)
    wider = dataclasses.replace(CASE, dims={k: v * 2 for k, v in CASE.dims.items()})
    assert loops.lookup("cuda:0", "t.x", (wider,), ("c0",)) == ()
    assert loops.lookup("cuda:1", "t.x", (CASE,), ("c0",)) == ()
    assert loops.lookup("cuda:0", "t.other", (CASE,), ("c0",)) == ()


@pytest.mark.parametrize("state,why", [
    (None, "not read"),
    (P.Conditions(error="NVML failed"), "could not be read"),
    (P.Conditions(throttled=True, throttle_reasons=("hw-thermal",)), "throttled"),
    (P.Conditions(neighbours=("757 python3",)), "other processes"),
    (P.Conditions(unattributed=(4242,)), "other processes"),
    (P.Conditions(neighbours_error="kgb runs in a container"), "could not be watched"),
])
def test_nothing_measured_under_bad_conditions_is_kept(tmp_path, state, why):
    c = cache(tmp_path)
    keys = c.keys("t.x", task_folder(tmp_path), (CASE,), ("c0",), (), "eager", "cuda:0")
    assert c.commit(keys, judged(P.Baseline("c0", (0.4,), (), None, 0.1)), state) == 0
    assert c.lookup(keys) == ()
    assert any(why in n for n in c.notes)


def test_figures_from_the_cache_or_failed_baselines_are_not_written_again(tmp_path):
    c = cache(tmp_path)
    keys = c.keys("t.x", task_folder(tmp_path), (CASE, OTHER), ("c0", "c1"), (), "all",
                  "cuda:0")
    base = P.Baseline("c0", (0.4,), (0.3,), None, 0.1, eager_cached_at=ENTRY.measured_at,
                      compile_cached_at=ENTRY.measured_at)
    assert c.commit(keys, judged(base, P.Baseline("c1", error="RuntimeError: boom")),
                    CLEAN) == 0


def test_a_gpu_without_identity_or_a_mode_without_baselines_caches_nothing(tmp_path):
    c = cache(tmp_path)
    assert c.keys("t.x", task_folder(tmp_path), (CASE,), ("c0",), (), "all", "cuda:1") == {}
    assert any("identity" in n for n in c.notes)
    assert c.keys("t.x", task_folder(tmp_path), (CASE,), ("c0",), (), "none", "cuda:0") == {}
    eager_only = c.keys("t.x", task_folder(tmp_path), (CASE,), ("c0",), (), "eager", "cuda:0")
    assert set(eager_only) == {("c0", "eager")}


def test_an_ignored_entry_is_said_once_and_measured_afresh(tmp_path):
    c = cache(tmp_path)
    keys = c.keys("t.x", task_folder(tmp_path), (CASE, OTHER), ("c0", "c1"), (), "eager",
                  "cuda:0")
    c.commit(keys, judged(P.Baseline("c0", (0.4,), (), None, 0.1),
                          P.Baseline("c1", (0.4,), (), None, 0.1)), CLEAN)
    for k in keys.values():
        os.chmod(c.store.path(k), 0o666)
    assert c.lookup(keys) == () and c.lookup(keys) == ()
    assert len(c.notes) == 2 and all("writable" in n for n in c.notes)  # one per file, once


def test_the_store_is_off_where_candidates_could_reach_it(tmp_path, monkeypatch):
    monkeypatch.setattr(BC, "device_key", lambda index: DEVICE)
    monkeypatch.setattr(BC, "software_key", lambda: SOFTWARE)
    root = tmp_path / "cache"
    on, state = BC.open_cache(str(root), ("cuda:0",), "namespaces", True, "all", ())
    assert on is not None and state == str(root)
    assert oct(root.stat().st_mode & 0o777) == oct(0o700)
    for args, why in [((str(root), ("cuda:0",), "none", True, "all", ()), "process sandbox"),
                      (("off", ("cuda:0",), "namespaces", True, "all", ()), "off"),
                      ((str(root), ("cpu",), "namespaces", True, "all", ()), "nothing is timed"),
                      ((str(root), ("cuda:0",), "namespaces", False, "all", ()), "nothing"),
                      ((str(root), ("cuda:0",), "namespaces", True, "none", ()), "nothing"),
                      ((str(root), ("cuda:0",), "namespaces", True, "all", (tmp_path,)),
                       "visible inside the sandbox")]:
        off, reason = BC.open_cache(*args)
        assert off is None and why in reason, (args, reason)
    os.chmod(root, 0o775)
    off, reason = BC.open_cache(str(root), ("cuda:0",), "namespaces", True, "all", ())
    assert off is None and "writable" in reason


def test_the_sandbox_is_never_shown_the_default_store(monkeypatch, tmp_path):
    """The worker's read-only paths (runtime, kgb, the submission, the job folder) never hold
    $HOME/.cache; and a store put inside one of them is refused."""
    from kgb.runner.execute import runtime_paths

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    root = BC.default_root()
    assert root == Path.home().absolute() / ".cache" / "kgb" / "baselines"
    assert BC.visible_to_sandbox(root, runtime_paths()) is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(Path(sys.prefix) / "cache"))
    assert BC.visible_to_sandbox(BC.default_root(), runtime_paths()) is not None


# ------------------------------------------------------------------ the judge's decision
class FakeTimer:
    """time_loop as the judge calls it, on no GPU: records which loops ran."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, call, inputs_for, *, budget_ms=300.0, graph=False, **_):
        kind = "noop" if budget_ms == 0.0 else "timed"
        self.calls.append(kind)
        times = [0.01] * 10 if kind == "noop" else [0.5] * 10
        return SimpleNamespace(times_ms=times, wall_ms=1.0, graph=graph, graph_error=None)


def judge_baselines(monkeypatch, cached, baselines="all", graph=(), loops=()):
    from kgb.judge import speed

    timer = FakeTimer()
    monkeypatch.setattr(speed, "time_loop", timer)
    monkeypatch.setattr(speed, "capture_clocks", lambda: None)
    monkeypatch.setattr(speed, "L2Reset", lambda device: None)
    monkeypatch.setattr(speed, "_timed_inputs", lambda *a: ())
    monkeypatch.setattr(speed, "_allow_recompiles", lambda: None)
    monkeypatch.setattr(speed.torch, "compile", lambda fn: fn)
    monkeypatch.setattr(speed.torch.cuda, "empty_cache", lambda: None)
    request = P.JudgeRequest("/nonexistent", "/nonexistent", "cuda:0", (CASE, OTHER), (), None,
                             (), timed_cases=("c0", "c1"), baselines=baselines,
                             graph_cases=graph, cached=cached, loops=loops)
    # as the judge gets it: one line from the host (kgb.runner.judge_pool), parsed
    request = P.loads(P.JudgeRequest, P.dumps(request), "judge request")
    assert request.cached == cached and request.loops == loops
    windows: list[str] = []
    monkeypatch.setattr(speed.Window, "take", lambda self: windows.append("take") or True)
    monkeypatch.setattr(speed.Window, "give", lambda self: None)
    reference = SimpleNamespace(reference=lambda *a: None)
    return speed.baselines(request, SimpleNamespace(), reference), timer.calls, windows


def test_the_judge_times_only_what_the_store_did_not_give(monkeypatch):
    when = "2026-11-27T05:00:00+00:00"
    cached = (P.CachedBaseline("c0", "eager", (0.9, 1.1), False, when),
              P.CachedBaseline("c0", "compile", (0.7,), False, when))
    result, calls, _ = judge_baselines(monkeypatch, cached)
    # c0: only the empty loop (no earlier job of the run gave it); c1: empty loop, eager, compile
    assert calls == ["noop", "noop", "timed", "timed"]
    c0, c1 = result
    assert c0.eager_ms == (0.9, 1.1) and c0.compile_ms == (0.7,)
    assert c0.eager_cached_at == when and c0.compile_cached_at == when
    assert c0.overhead_ms is not None
    assert c1.eager_ms == (0.5,) * 10 and c1.eager_cached_at is None


def test_the_judge_does_not_take_a_compile_figure_of_the_other_mode(monkeypatch):
    """A graph-timed case never takes a plain compile figure (the key says graph; a cached
    value that disagrees is measured again)."""
    when = "2026-11-27T05:00:00+00:00"
    cached = (P.CachedBaseline("c0", "compile", (0.7,), False, when),)
    result, calls, _ = judge_baselines(monkeypatch, cached, graph=("c0",))
    assert result[0].compile_ms == (0.5,) * 10 and result[0].compile_cached_at is None
    assert calls.count("timed") == 4


def test_the_cached_time_reaches_the_report(monkeypatch):
    from kgb.report import view as V
    from kgb.runner.speed import judge_speed

    when = "2026-11-27T05:00:00+00:00"
    plan = P.PlanRecord("t.x", "Activation", "k.py", "cuda:0", 60.0, (CASE,))
    timed = P.TimedCase("c0", (0.2,) * 10, 3, ("f",) * 10, (1,))
    worker = P.WorkerResult("done", (), timed=(timed,))
    judge = judged(P.Baseline("c0", (0.4,) * 10, (0.3,), None, 0.1, eager_cached_at=when,
                              compile_cached_at=when))
    timing = judge_speed(plan, None, worker, judge).cases[0]
    assert timing.eager_cached_at == when and timing.compile_cached_at == when
    report = {"environment": {"baseline_cache": {"dir": "/c", "hits": 2, "stored": 0,
                                                 "notes": ["ignored /c/ab/x.json is a link"]}},
              "jobs": [{"task": "t.x", "verdict": "passed", "timings": [P.to_json(timing)]}]}
    lines = V.baseline_cache_lines(report)
    assert lines[0].startswith(f"Baseline from cache, measured at {when}")
    assert "ignored /c/ab/x.json is a link" in lines[1]


def test_the_host_keeps_nothing_when_the_gpu_throttled_as_the_judge_began(tmp_path):
    """execute._keep_measured: the conditions right after the worker (a candidate may have
    heated the GPU) and after the judge must both be clean, for the store's baselines and
    the run's loop costs alike; a failed judge keeps nothing."""
    from kgb.jsonfiles import write_json_atomic
    from kgb.runner.execute import _keep_measured
    from kgb.runner.run_memo import RunMemo

    c = cache(tmp_path)
    ctx = SimpleNamespace(baseline_cache=c, memo=RunMemo())
    job_of = SimpleNamespace(device="cuda:0", task=SimpleNamespace(id="t.x"))
    plan = SimpleNamespace(cases=(CASE,))
    keys = c.keys("t.x", task_folder(tmp_path), (CASE,), ("c0",), (), "eager", "cuda:0")
    job = tmp_path / "job"
    job.mkdir()

    def loops():
        return ctx.memo.loops.lookup("cuda:0", "t.x", (CASE,), ("c0",))

    _keep_measured(ctx, job_of, plan, keys, job, (CLEAN, CLEAN))  # no judge.json: it failed
    assert c.stored == 0 and loops() == ()
    write_json_atomic(job / P.JUDGE_FILE,
                      P.to_json(judged(P.Baseline("c0", (0.4,), (), None, 0.1))))
    hot = P.Conditions(throttled=True, throttle_reasons=("sw-thermal",))
    _keep_measured(ctx, job_of, plan, keys, job, (hot, CLEAN))
    assert c.stored == 0 and any("sw-thermal" in n for n in c.notes) and loops() == ()
    _keep_measured(ctx, job_of, plan, keys, job, (CLEAN, CLEAN))
    assert c.stored == 1 and c.lookup(keys)[0].times_ms == (0.4,)
    assert loops() == (P.CachedLoop("c0", 0.1),)


def test_a_case_whose_every_figure_was_given_takes_no_window(monkeypatch):
    """Baselines from the store and the empty loop's cost from an earlier job of the run:
    the judge times nothing for that case and never asks for the GPU's lock, so no job is
    frozen for it; a case missing its loop cost still gets its window and its empty loop."""
    when = "2026-11-27T05:00:00+00:00"
    cached = tuple(P.CachedBaseline(c, kind, (0.9,), False, when)
                   for c in ("c0", "c1") for kind in ("eager", "compile"))
    result, calls, windows = judge_baselines(monkeypatch, cached,
                                             loops=(P.CachedLoop("c0", 0.03),))
    c0, c1 = result
    assert c0.overhead_ms == 0.03 and c0.overhead_cached and c0.eager_ms == (0.9,)
    assert c0.compile_ms == (0.9,) and c0.eager_cached_at == when and c0.compile_error is None
    assert not c1.overhead_cached and c1.overhead_ms is not None
    assert calls == ["noop"] and windows == ["take"]  # c1's empty loop only
    result, calls, windows = judge_baselines(
        monkeypatch, cached, loops=(P.CachedLoop("c0", 0.03), P.CachedLoop("c1", 0.04)))
    assert calls == [] and windows == [] and all(b.overhead_cached for b in result)
    result, calls, windows = judge_baselines(  # no compile figure stored: timed as before
        monkeypatch, cached[:1], loops=(P.CachedLoop("c0", 0.03),), baselines="all")
    assert windows and "noop" in calls


# ------------------------------------------------------------------ torch.compile ahead
class CountingCompile:
    """torch.compile as the judge calls it, on no GPU: each wrapper records the inputs of
    the calls made through it."""

    def __init__(self) -> None:
        self.made: list[SimpleNamespace] = []

    def __call__(self, fn):
        wrapper = SimpleNamespace(calls=[], fn=fn)

        def call(*inputs):
            wrapper.calls.append(inputs)
            return fn(*inputs)

        wrapper.call = call
        self.made.append(wrapper)
        return call


def test_the_reference_compiled_ahead_is_the_one_the_judgement_times(monkeypatch, tmp_path):
    """A job's compile-ahead request compiles the reference once, calling it for each case
    the plan will time; the judgement that follows in the same judge times that very
    compiled function (no second torch.compile), though it loads the reference afresh. A
    changed reference file is compiled anew, and the judge keeps only the last few."""
    from kgb.judge import speed
    from kgb.tasks.casegen import load_module

    compile_ = CountingCompile()
    monkeypatch.setattr(speed, "_COMPILED", {})
    monkeypatch.setattr(speed.torch, "compile", compile_)
    monkeypatch.setattr(speed, "_allow_recompiles", lambda: None)
    monkeypatch.setattr(speed, "_timed_inputs", lambda request, module, case, rep: (case.id,))
    monkeypatch.setattr(speed.torch.cuda, "synchronize", lambda: None)
    path = task_folder(tmp_path) / "reference.py"
    ahead = P.JudgeRequest("/nonexistent", "/nonexistent", "cuda:0", (CASE, OTHER), (), None,
                           (), timed_cases=("c0", "c1"), ahead=True)
    assert speed.compile_ahead(ahead, SimpleNamespace(), load_module(path, "ref_a")) == 2
    assert len(compile_.made) == 1 and compile_.made[0].calls == [("c0",), ("c1",)]
    assert speed.compile_ahead(dataclasses.replace(ahead, baselines="eager"),
                               SimpleNamespace(), load_module(path, "ref_b")) == 0
    assert speed.compile_ahead(dataclasses.replace(ahead, device="cpu"),
                               SimpleNamespace(), load_module(path, "ref_c")) == 0

    monkeypatch.setattr(speed, "time_loop", FakeTimer())
    monkeypatch.setattr(speed, "capture_clocks", lambda: None)
    monkeypatch.setattr(speed, "L2Reset", lambda device: None)
    monkeypatch.setattr(speed.torch.cuda, "empty_cache", lambda: None)
    grants: list[str] = []
    monkeypatch.setattr(speed.Window, "take", lambda self: grants.append("take") or True)
    monkeypatch.setattr(speed.Window, "give", lambda self: grants.append("give"))
    judgement = dataclasses.replace(ahead, ahead=False)
    result = speed.baselines(judgement, SimpleNamespace(), load_module(path, "ref_d"))
    assert [b.compile_ms for b in result] == [(0.5,) * 10] * 2
    assert len(compile_.made) == 1  # the same compiled function: its first calls hit
    assert compile_.made[0].calls[2:] == [("c0",), ("c1",)]  # the judgement's first calls
    # compiled ahead: each case's first call is made inside its window, no grant of its own
    assert grants.count("take") == 2

    path.write_text("def reference(x): return x * 1")
    grants.clear()
    again = speed.baselines(judgement, SimpleNamespace(), load_module(path, "ref_e"))
    assert [b.compile_error for b in again] == [None, None], again
    assert len(compile_.made) == 2  # another reference: compiled anew
    assert grants.count("take") == 4  # its compiles, outside the windows: a grant after each
    for n in range(speed.COMPILED_KEPT + 1):
        other = tmp_path / f"r{n}.py"
        other.write_text(f"def reference(x): return x + {n + 1}")
        speed.Baselined(load_module(other, f"ref_{n}")).compiled()
    assert len(speed._COMPILED) == speed.COMPILED_KEPT


def test_a_job_compiles_ahead_only_where_the_store_lacks_a_compile_figure(tmp_path):
    """execute.compiles_ahead: a timed GPU job with both baselines, a lock for its GPU
    (a lone GPU gets one only for such jobs: kgb.runner.gpu_share.Shares), and a
    torch.compile figure of a timed case missing from the store; with every figure stored
    the job's GPU stays its own."""
    from kgb.runner.execute import compiles_ahead
    from kgb.runner.gpu_share import Shares

    lone = Shares.for_slots(("cuda:0", "cuda:1", "cuda:1"), ahead=True)
    assert lone.get("cuda:0") is None and lone.for_ahead("cuda:0") is not None
    assert lone.get("cuda:1") is not None and lone.for_ahead("cuda:1") is lone.get("cuda:1")
    assert Shares.for_slots(("cuda:0",)).for_ahead("cuda:0") is None
    assert Shares.for_slots(("cpu", "cpu"), ahead=True).for_ahead("cpu") is None

    folder = task_folder(tmp_path)
    job = SimpleNamespace(task=SimpleNamespace(id="t.x", folder=folder), device="cuda:0")
    plan = P.PlanRecord("t.x", "Activation", "k.py", "cuda:0", 60.0, (CASE, OTHER),
                        timing=True)
    c = cache(tmp_path)

    def ctx(**changes):
        base = dict(shares=lone, baselines="all", baseline_cache=c, again=None)
        return SimpleNamespace(**dict(base, **changes))

    assert compiles_ahead(job, plan, ctx()) is True  # nothing stored
    assert compiles_ahead(job, plan, ctx(baseline_cache=None)) is True  # no store at all
    assert compiles_ahead(job, plan, ctx(baselines="eager")) is False
    assert compiles_ahead(job, dataclasses.replace(plan, timing=False), ctx()) is False
    assert compiles_ahead(job, plan, ctx(shares=Shares())) is False  # no lock for it
    assert compiles_ahead(job, dataclasses.replace(plan, cases=(dataclasses.replace(
        CASE, mode="outliers"),)), ctx()) is False  # nothing the plan times
    keys = c.keys("t.x", folder, (CASE, OTHER), ("c0", "c1"), (), "all", "cuda:0")
    c.commit(keys, judged(P.Baseline("c0", (0.4,), (0.3,), None, 0.1)), CLEAN)
    assert compiles_ahead(job, plan, ctx()) is True  # c1's figures are still missing
    c.commit(keys, judged(P.Baseline("c1", (0.4,), (0.3,), None, 0.1)), CLEAN)
    assert compiles_ahead(job, plan, ctx()) is False
    graphed = dataclasses.replace(plan, cuda_graph=True)
    assert compiles_ahead(job, graphed, ctx()) is True  # graph-mode figures: other keys
