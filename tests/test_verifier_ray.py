"""kgb.Verifier's teardown under signals, and its Ray pool's request handling, without a
cluster (the real two-node run is tests/test_ray.py's test_the_verifier_on_ray_...):
- close() waits for every request's teardown even when a signal interrupts it (on CPython 3.11
  an interrupted Thread.join marks the thread stopped, so kgb exited mid-teardown);
- a RayPool request whose run fails for kgb's reasons, or is cancelled, or passes its deadline,
  is an infra_error result, never a verdict; a lost actor's job runs again on another and the
  lost attempt is kept for the report."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import ROOT

from kgb.errors import InfraError
from kgb.placement.ray_slot import Answer

CLOSE_UNDER_SIGNAL = """
import os, signal, sys, threading, time
from pathlib import Path
import kgb
from kgb.serve.executor import VerifyRequest

marker = Path(sys.argv[1])

class SlowTeardown:  # a request whose ending takes a while (a child, its sandbox)
    def run(self, request, cancel):
        cancel.wait()
        time.sleep(1.5)
        marker.write_text("torn down")
        return ()

def stop(signum, frame):  # as kgb serve and kgb verify turn SIGTERM into KeyboardInterrupt
    raise KeyboardInterrupt("SIGTERM")

signal.signal(signal.SIGTERM, stop)
verifier = kgb.Verifier(slots=1, device="cpu", executor=SlowTeardown()).open()
verifier.submit(VerifyRequest(("activation.relu",), source="x"))
time.sleep(0.3)
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
verifier.close()  # the signal comes while close waits for the request to end
"""


def test_a_signal_during_close_still_lets_the_running_request_tear_down(tmp_path):
    marker = tmp_path / "marker"
    proc = subprocess.run([sys.executable, "-c", CLOSE_UNDER_SIGNAL, str(marker)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert "KeyboardInterrupt" in proc.stderr, proc.stderr[-2000:]  # the signal still stops
    assert marker.read_text() == "torn down", "kgb exited before the request's teardown"


# ---------------------------------------------------------------- the Ray pool, no cluster
def pool(actors: int = 2):
    from kgb.placement.ray_host import _Actor
    from kgb.placement.ray_pool import RayPool

    place = RayPool.__new__(RayPool)  # no cluster: the request handling alone
    place.address, place.retried, place.depth, place._primary = "fake:1", {}, 1, ""
    place.job_seconds = {}
    place._actors = [_Actor(SimpleNamespace(name=f"kgb-slot-{i}"), f"kgb-slot-{i}",
                            node=f"node-{i}", node_ip=f"10.0.0.{i}", slot="cpu")
                     for i in range(actors)]
    place._live = {a.name for a in place._actors}
    place._busy = {a.name: 0 for a in place._actors}
    place._cond = threading.Condition()
    place._runs, place._local, place._by_id = {}, threading.local(), {}
    place._stopped, place._replaced = threading.Event(), 0
    return place


def executor(place, monkeypatch, workdir: Path, outcome, deadline_s: float = 60.0):
    """A RayExecutor whose host-side run is `outcome(place, request)` (raises or returns)."""
    import kgb.runner.verify as verify
    from kgb.placement.ray_pool import RayExecutor
    from kgb.serve.executor import ExecOptions

    def run_verify(options, quiet=False, placement=None):
        ctx = SimpleNamespace(run_id="r1", submission_root=options.submission,
                              cancel=threading.Event())
        try:  # as kgb.runner.verify: release is registered before open
            placement.open(ctx, [])
            return outcome(placement, ctx)
        finally:
            placement.release()

    monkeypatch.setattr(verify, "run_verify", run_verify)
    options = ExecOptions(tasks=ROOT / "tasks", device="cpu", sandbox="process", timeout_s=None,
                          deadline_s=deadline_s)
    return RayExecutor(place, options, workdir)


def _request():
    from kgb.serve.executor import VerifyRequest

    return VerifyRequest(("activation.relu",), source="def relu(x):\n    return x\n")


def test_every_attempt_lost_is_an_infra_error_result_not_a_verdict(tmp_path, monkeypatch):
    def lost(place, ctx):
        raise InfraError("job activation.relu was lost 3 times on Ray (node gone)")

    (result,) = executor(pool(), monkeypatch, tmp_path, lost).run(_request(), threading.Event())
    assert (result.status, result.verdict) == ("infra_error", "infra_error")
    assert "lost 3 times" in result.message and result.reward_ready["infra_failure"]


@pytest.mark.parametrize("why", ["cancel", "deadline"])
def test_a_cancelled_or_late_request_stops_its_run_and_is_an_infra_error(tmp_path, monkeypatch,
                                                                         why):
    """The pool's watcher sets the run's cancel (the actor is told to stop that job alone);
    whatever the run returns then is not the request's answer."""
    place = pool()
    watcher = threading.Thread(target=place._watch, daemon=True)
    watcher.start()
    cancel = threading.Event()

    def stopped(place, ctx):
        if why == "cancel":
            threading.Timer(0.2, cancel.set).start()
        assert ctx.cancel.wait(5), "the run was not stopped"
        return {"jobs": [{"task": "activation.relu", "verdict": "passed"}]}

    try:
        (result,) = executor(place, monkeypatch, tmp_path, stopped,
                             deadline_s=60.0 if why == "cancel" else 0.3).run(_request(), cancel)
    finally:
        place._stopped.set()
    assert result.status == "infra_error" and result.verdict == "infra_error"
    assert result.message == ("the request was cancelled" if why == "cancel"
                              else "the request's deadline passed")
    assert place._by_id == {} and place._runs == {}  # nothing kept past the request


def test_a_lost_actors_job_runs_again_on_another_and_the_actor_is_replaced(monkeypatch):
    """The pool's job call (its request's files with the job) through RayPlacement's retry:
    the first actor's worker dies, the job is answered by the second, the lost attempt is in
    the retries the report shows, the dead actor takes no further job and a new actor takes
    its place (a long-lived pool would otherwise shrink to nothing)."""
    place = pool()

    class RayError(Exception):
        pass

    class RayTaskError(RayError):
        pass

    calls: list[str] = []

    class Handle:
        def __init__(self, name: str) -> None:
            self.name = name
            self.ready = SimpleNamespace(remote=lambda: ("ready", name))
            self.run_request = SimpleNamespace(remote=self._run)
            self.stop_request = SimpleNamespace(remote=lambda key: None)

        def _run(self, job, key, host_root, task, submission, limits):
            calls.append(self.name)
            assert (key, task, submission, limits) == ("r1", {"task.toml": b"id"},
                                                       {"k.py": b"x"}, "limits")
            return self.name

    answer = Answer({}, (), "node-1", "10.0.0.9", "cpu", "kgb-slot-1")

    def get(ref, timeout=None):
        if ref[0] == "ready":
            return (f"node-{ref[1]}", "10.0.0.9", "cpu", "cpu")
        if ref == "kgb-slot-0":
            raise RayError("the actor died unexpectedly")
        return answer

    place.ray = SimpleNamespace(wait=lambda refs, timeout=None: (refs, []), get=get,
                                kill=lambda handle: None,
                                exceptions=SimpleNamespace(RayError=RayError,
                                                           RayTaskError=RayTaskError))
    for actor in place._actors:
        actor.handle = Handle(actor.name)
    started: list[tuple] = []

    def launch(spec, bundle, name):
        started.append((spec, bundle, name))
        return Handle(name)

    place._launch, place.device_name = (SimpleNamespace(remote=launch), "spec", "bundle"), "cpu"
    monkeypatch.setattr(place, "_finish", lambda job, ctx, answer, retries, started:
                        (answer, retries))
    place._runs["r1"] = ("/host/sub", {"k.py": b"x"}, {"activation.relu": {"task.toml": b"id"}})
    job = SimpleNamespace(task=SimpleNamespace(id="activation.relu"))
    ctx = SimpleNamespace(run_id="r1", cancel=threading.Event(), limits="limits")
    got, retries = place.run(job, ctx)
    assert calls == ["kgb-slot-0", "kgb-slot-1"] and got is answer
    assert [(r.node, r.slot) for r in retries] == [("node-0", "cpu")]
    assert "died unexpectedly" in retries[0].reason
    for _ in range(50):  # the replacement starts in the background
        if not place._starting:
            break
        time.sleep(0.1)
    assert started == [("spec", "bundle", "kgb-slot-r1")]
    assert place._live == {"kgb-slot-1", "kgb-slot-r1"}  # kgb-slot-0 takes no further job
    new = next(a for a in place._actors if a.name == "kgb-slot-r1")
    assert (new.node, new.slot, place._busy[new.name]) == ("node-kgb-slot-r1", "cpu", 0)


def test_two_live_requests_never_share_a_run_id(tmp_path, monkeypatch):
    """Run ids are 32 bits: were two live requests' ids the same, the second's job would go
    out with the first one's files and be judged on the wrong kernel. It is refused instead
    (infra_error), and the first request's files are untouched."""
    place = pool()
    place._runs["r1"] = ("/host/first", {"k.py": b"first"}, {})

    def never(place, ctx):
        raise AssertionError("the run went on")

    (result,) = executor(place, monkeypatch, tmp_path, never).run(_request(), threading.Event())
    assert result.status == "infra_error" and "already in use" in result.message
    assert place._runs == {"r1": ("/host/first", {"k.py": b"first"}, {})}
