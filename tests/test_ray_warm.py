"""Prepare-ahead on Ray (issue 24's warm slots on issue 25's actors), without a cluster:
- the host (RayPlacement) keeps at most two jobs in flight per actor on a warm run, and gives a
  busy actor a second job only when no actor is idle; one per actor otherwise;
- the actor (SlotActor) prepares a job that arrives while its slot is busy — outside the slot's
  lock, so during the running job — and finishes it after; a stop while it waits abandons it
  (its held sandbox killed) and the job is cancelled, never run.
The real pipeline on a real two-node cluster is tests/test_ray.py's."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from kgb.placement.ray_host import RayPlacement, _Actor
from kgb.placement.ray_slot import Gate, SlotActor, SlotSpec, Waiting
from kgb.sandbox.base import Limits


def placement(actors: int, depth: int) -> RayPlacement:
    place = RayPlacement.__new__(RayPlacement)  # no cluster: the dispatch alone
    place._actors = [_Actor(None, f"kgb-slot-{i}") for i in range(actors)]
    place._live = {a.name for a in place._actors}
    place._busy = {a.name: 0 for a in place._actors}
    place._cond = threading.Condition()
    place.ahead, place.depth = depth > 1, depth
    return place


def test_a_warm_run_gives_a_busy_actor_a_second_job_only_when_none_is_idle():
    place, cancel = placement(2, depth=2), threading.Event()
    taken = [place._take(cancel, f"t{i}").name for i in range(4)]
    assert taken[:2] == ["kgb-slot-0", "kgb-slot-1"]  # each actor's first job first
    assert sorted(taken[2:]) == ["kgb-slot-0", "kgb-slot-1"]  # then one ahead on each
    blocked = threading.Thread(target=lambda: taken.append(place._take(cancel, "t4").name))
    blocked.start()
    time.sleep(0.5)
    assert blocked.is_alive(), "a third job in flight on an actor"
    place._give_back(place._actors[1])
    blocked.join(5)
    assert taken[4] == "kgb-slot-1"


def test_at_the_runs_tail_a_job_waits_for_an_idle_actor_not_behind_a_busy_one():
    """Five jobs on two warm actors: while more jobs are left than actors, a busy actor gets
    a second (prepared ahead); after that (no more left than actors) a job is not sent to wait
    behind a busy actor's job, which could not be taken back when another actor goes idle
    first: it goes to the first actor that is idle."""
    place, cancel = placement(2, depth=2), threading.Event()
    place._unplaced = 5

    def later(task: str) -> tuple[threading.Thread, list[str]]:
        got: list[str] = []
        thread = threading.Thread(target=lambda: got.append(place._take(cancel, task).name))
        thread.start()
        time.sleep(0.5)
        return thread, got

    taken = [place._take(cancel, f"t{i}").name for i in range(3)]
    assert taken == ["kgb-slot-0", "kgb-slot-1", "kgb-slot-0"]  # 3 left > 2 actors: warm
    thread, got = later("t3")
    assert thread.is_alive(), "a tail job was sent behind a busy actor's job"
    place._give_back(place._actors[1])  # slot 1 idle first
    thread.join(5)
    assert got == ["kgb-slot-1"]
    thread, got = later("t4")
    place._give_back(place._actors[0])  # slot 0's first job ends, its second still runs
    time.sleep(0.5)
    assert thread.is_alive(), "the last job was sent behind slot 0's second job"
    place._give_back(place._actors[1])  # slot 1 (t3) ends first: the last job goes there
    thread.join(5)
    assert got == ["kgb-slot-1"] and place._unplaced == 0


def test_a_cold_run_keeps_one_job_per_actor():
    place, cancel = placement(2, depth=1), threading.Event()
    assert [place._take(cancel, f"t{i}").name for i in range(2)] == ["kgb-slot-0",
                                                                    "kgb-slot-1"]
    stopper = threading.Timer(0.5, cancel.set)
    stopper.start()
    from kgb.runner.execute import JobCancelled

    with pytest.raises(JobCancelled):
        place._take(cancel, "t2")


@dataclass
class _Prepared:
    job: object
    ahead: bool = False


def actor(tmp_path: Path, monkeypatch, events: list[tuple[str, str, float]]) -> SlotActor:
    """A SlotActor whose pipeline steps are recorded stand-ins (finish takes 1 s)."""
    import kgb.runner.execute as execute

    slot = SlotActor.__new__(SlotActor)
    slot.spec = SlotSpec("r", "cpu", "process", Limits(), str(tmp_path), warm=True)
    slot.gate, slot.cancel, slot.waiting = Gate(), threading.Event(), Waiting()
    slot.ctx = SimpleNamespace(out_dir=tmp_path)
    slot.node, slot.node_ip, slot.slot, slot.name = "n", "127.0.0.1", "cpu", "a"
    slot._localize = lambda job: job  # type: ignore[method-assign]

    def prepare(job, ctx):
        events.append(("prepare", job.task.id, time.monotonic()))
        return _Prepared(job)

    def finish(prepared, ctx):
        events.append(("start", prepared.job.task.id, time.monotonic()))
        time.sleep(1.0)
        folder = ctx.out_dir / "jobs" / prepared.job.task.id
        folder.mkdir(parents=True)
        (folder / "plan.json").write_text("{}")
        events.append(("end", prepared.job.task.id, time.monotonic()))

    monkeypatch.setattr(execute, "prepare_job", prepare)
    monkeypatch.setattr(execute, "finish_job", finish)
    monkeypatch.setattr(execute, "abandon_job",
                        lambda prepared: events.append(("abandon", prepared.job.task.id, 0.0)))
    return slot


def job(task: str) -> SimpleNamespace:
    return SimpleNamespace(task=SimpleNamespace(id=task))


def test_the_actor_prepares_a_job_that_arrives_while_its_slot_is_busy(tmp_path, monkeypatch):
    events: list[tuple[str, str, float]] = []
    slot = actor(tmp_path, monkeypatch, events)
    first = threading.Thread(target=slot.run, args=(job("t.first"),))
    first.start()
    time.sleep(0.3)
    answer = slot.run(job("t.second"))
    first.join()
    at = {(kind, task): t for kind, task, t in events}
    assert at[("prepare", "t.second")] < at[("end", "t.first")], events  # prepared meanwhile
    assert at[("start", "t.second")] >= at[("end", "t.first")], events  # run after it
    assert answer.files == {"plan.json": b"{}"}
    # the actor's own seconds come back with it (report.json's `ray` section): prepared
    # ahead, then ~0.7 s waiting for the first job's lock, then its own 1 s run
    assert set(answer.seconds) == {"prepare", "lock_wait", "finish", "pack"}, answer.seconds
    assert 0.4 < answer.seconds["lock_wait"] < 1.0 and answer.seconds["finish"] >= 1.0


def test_a_stop_while_a_prepared_job_waits_abandons_it(tmp_path, monkeypatch):
    from kgb.runner.execute import JobCancelled

    events: list[tuple[str, str, float]] = []
    slot = actor(tmp_path, monkeypatch, events)
    first = threading.Thread(target=slot.run, args=(job("t.first"),))
    first.start()
    time.sleep(0.3)
    threading.Timer(0.3, slot.stop).start()
    with pytest.raises(JobCancelled):
        slot.run(job("t.second"))
    first.join()
    assert ("abandon", "t.second") in {(k, t) for k, t, _ in events}
    assert ("start", "t.second") not in {(k, t) for k, t, _ in events}


# ---------------------------------------------------------------- withdrawal at the tail
def test_a_waiting_job_is_withdrawn_until_it_takes_its_place_never_after():
    from kgb.placement.ray_slot import Waiting

    waiting = Waiting()
    waiting.add("/a")
    waiting.add("/b")
    assert waiting.withdraw() == "/b"  # the newest first
    assert waiting.settle("/b") is True  # it learns it was withdrawn
    assert waiting.settle("/a") is False  # it took its place first
    assert waiting.withdraw("/a") is None and waiting.withdraw() is None  # too late, no one


def test_the_actor_gives_back_a_prepared_job_that_still_waits(tmp_path, monkeypatch):
    """A job prepared while the slot was busy is withdrawn before it gets the place: it never
    starts here, its held sandbox is abandoned and the answer says so; a job that has its
    place is not withdrawn."""
    events: list[tuple[str, str, float]] = []
    slot = actor(tmp_path, monkeypatch, events)  # finish takes 1 s
    first = threading.Thread(target=slot.run, args=(job("t.a"),))
    first.start()
    time.sleep(0.2)
    answers: list = []
    second = threading.Thread(target=lambda: answers.append(slot.run(job("t.b"))))
    second.start()
    time.sleep(0.3)
    assert slot.withdraw() == "/t.b"
    second.join(5)
    first.join(5)
    assert answers[0].withdrawn and answers[0].files == {}
    kinds = [(kind, task) for kind, task, _ in events]
    assert ("prepare", "t.b") in kinds and ("abandon", "t.b") in kinds
    assert ("start", "t.b") not in kinds
    assert slot.withdraw() is None  # nothing waits any more
    assert not slot.gate.full()  # the withdrawn job took no place with it


def test_at_the_tail_a_freed_place_takes_the_job_waiting_on_a_full_actor():
    """With actors that can give a waiting job back, jobs go ahead to the run's end; when an
    actor's place frees and no job is left on the host, the fullest other actor is asked to
    give back the job that still waits there."""
    asked: list[str] = []

    class Handle:
        def __init__(self, name: str) -> None:
            self.withdraw = SimpleNamespace(remote=lambda: asked.append(name) or name)

    place, cancel = placement(2, depth=2), threading.Event()
    place.withdraws, place._unplaced = True, 3
    place._actors = [_Actor(Handle(a.name), a.name) for a in place._actors]
    place.ray = SimpleNamespace(get=lambda ref, timeout=None: None)
    taken = [place._take(cancel, f"t{i}").name for i in range(3)]
    assert taken == ["kgb-slot-0", "kgb-slot-1", "kgb-slot-0"]  # the last ahead, at the tail
    assert place._unplaced == 0
    place._give_back(place._actors[1])  # slot 1 frees first: slot 0's waiting job is asked
    assert asked == ["kgb-slot-0"]
    place._give_back(place._actors[0])  # slot 0 frees with its job still ahead: none asked
    assert asked == ["kgb-slot-0"]


def test_a_withdrawn_job_takes_another_actor_and_counts_no_retry():
    """Slot 0 and slot 1 each run a job; the last job goes ahead to slot 0; slot 1's job ends
    first and slot 0 gives the waiting job back: it is sent again, to slot 1, as the same
    attempt (no retry), and the run's count of jobs not handed out is restored on the way."""
    from kgb.placement.ray_slot import Answer

    place, cancel = placement(2, depth=2), threading.Event()
    place.withdraws, place._unplaced, place.retried = True, 1, {}
    place._born, place.job_seconds, place._primary = time.monotonic(), {}, "r"
    place._busy.update({"kgb-slot-0": 1, "kgb-slot-1": 1})
    sent: list[str] = []
    unplaced: list[int | None] = []

    def wait(ref, actor, ctx, task):
        if len(sent) == 1:  # slot 1's own job ends meanwhile; slot 0 gives this one back
            place._busy["kgb-slot-1"] = 0
            return Answer({}, (), "n", "ip", "cuda:0", actor.name, withdrawn=True)
        unplaced.append(place._unplaced)
        return Answer({}, (), "n", "ip", "cuda:1", actor.name)

    place._submit = lambda actor, job, ctx: sent.append(actor.name) or actor.name
    place._wait = wait
    place._finish = lambda job, ctx, answer, retries, started: (answer.actor, retries)
    place._full_beside = lambda freed: None  # no Ray here to ask
    result = place.run(job("t.x"), SimpleNamespace(cancel=cancel, run_id="r"))
    assert sent == ["kgb-slot-0", "kgb-slot-1"]
    assert result == ("kgb-slot-1", ()) and place.retried == {}
    assert unplaced == [0] and place._busy == {"kgb-slot-0": 1, "kgb-slot-1": 0}
