"""Several jobs at once on one Ray actor (`--ray ... --jobs N` on GPUs), without a cluster:
- the host keeps at most N jobs running per actor (N + 1 on a warm run, the one more prepared
  ahead only where no actor has a free place; at the run's tail none ahead);
- the actor runs N jobs at once, prepares the next while its places are taken, and closes only
  once none runs;
- under the process sandbox, which does not hide an actor's folder from candidates, the host
  refuses it (jobs at once could read each other's reference outputs).
The timing lock those jobs share is the local runs' (kgb.runner.gpu_share, tests/test_gpu_share.py);
the actor gives every member's jobs one lock per GPU, as a local batch now does (last test)."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
from test_ray_warm import actor, job, placement

from kgb.errors import BadInput
from kgb.placement.ray_host import RayPlacement, concurrency
from kgb.placement.ray_slot import Gate, SlotSpec
from kgb.sandbox.base import Limits


def _waits_for_a_place(place, cancel, task: str, free) -> str:
    """The actor `place._take` gives `task` once `free()` gives a place back; it must wait
    until then."""
    got: list[str] = []
    thread = threading.Thread(target=lambda: got.append(place._take(cancel, task).name))
    thread.start()
    time.sleep(0.5)
    assert thread.is_alive(), f"{task} was sent to an actor with no place for it"
    free()
    thread.join(5)
    return got[0]


def test_the_host_fills_each_actors_places_before_sending_one_ahead():
    place, cancel = placement(2, depth=2), threading.Event()
    place.width = 2
    taken: list[str] = []
    filler = threading.Thread(
        target=lambda: taken.extend(place._take(cancel, f"t{i}").name for i in range(8)))
    filler.start()
    filler.join(5)
    if filler.is_alive():
        cancel.set()  # the blocked take ends (JobCancelled in its thread)
        pytest.fail(f"only {len(taken)} jobs in flight on two actors of width 2")
    # every place first (the least busy actor each time), then one ahead for each place
    # (one per actor left an actor's second free place to start its next job cold)
    assert sorted(taken[:4]) == ["kgb-slot-0", "kgb-slot-0", "kgb-slot-1", "kgb-slot-1"]
    assert sorted(taken[4:]) == ["kgb-slot-0", "kgb-slot-0", "kgb-slot-1", "kgb-slot-1"]
    # a fifth job in flight on an actor of width 2 waits for one of its four to end
    assert _waits_for_a_place(place, cancel, "t8",
                              lambda: place._give_back(place._actors[0])) == "kgb-slot-0"


def test_at_the_tail_no_job_waits_behind_a_full_actor():
    place, cancel = placement(2, depth=2), threading.Event()
    place.width, place._unplaced = 2, 4  # no more jobs left than places: none ahead
    assert sorted(place._take(cancel, f"t{i}").name for i in range(4)) == [
        "kgb-slot-0", "kgb-slot-0", "kgb-slot-1", "kgb-slot-1"]
    place._unplaced = 1
    assert _waits_for_a_place(place, cancel, "t4",
                              lambda: place._give_back(place._actors[1])) == "kgb-slot-1"


def _two_running(tmp_path, monkeypatch, events: list) -> tuple[object, list[threading.Thread]]:
    """An actor of width 2 (finish takes 1 s) with jobs t.a and t.b running for 0.3 s."""
    slot = actor(tmp_path, monkeypatch, events)
    slot.gate = Gate(2)
    threads = [threading.Thread(target=slot.run, args=(job(f"t.{name}"),))
               for name in ("a", "b")]
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    return slot, threads


def test_an_actor_of_width_two_runs_two_jobs_at_once_and_prepares_the_third(tmp_path,
                                                                          monkeypatch):
    events: list[tuple[str, str, float]] = []
    slot, threads = _two_running(tmp_path, monkeypatch, events)
    answer = slot.run(job("t.c"))
    for thread in threads:
        thread.join()
    at = {(kind, task): t for kind, task, t in events}
    first_end = min(at[("end", "t.a")], at[("end", "t.b")])
    assert max(at[("start", "t.a")], at[("start", "t.b")]) < first_end, events  # at once
    assert at[("prepare", "t.c")] < first_end, events  # prepared while both places were taken
    assert at[("start", "t.c")] >= first_end, events  # run once one was free
    assert 0.4 < answer.seconds["lock_wait"] < 1.0, answer.seconds


def test_an_actor_of_width_two_prepares_a_job_for_each_place(tmp_path, monkeypatch):
    """Two jobs sent ahead to a full actor of width 2 are both prepared while its places are
    taken, so both of its places start their next job warm (run 26: with one ahead per actor,
    33 of 64 jobs started cold on four GPUs)."""
    events: list[tuple[str, str, float]] = []
    slot, running = _two_running(tmp_path, monkeypatch, events)
    ahead = [threading.Thread(target=slot.run, args=(job(f"t.{name}"),)) for name in ("c", "d")]
    for thread in ahead:
        thread.start()
    for thread in running + ahead:
        thread.join()
    at = {(kind, task): t for kind, task, t in events}
    first_end = min(at[("end", "t.a")], at[("end", "t.b")])
    assert max(at[("prepare", "t.c")], at[("prepare", "t.d")]) < first_end, events
    assert min(at[("start", "t.c")], at[("start", "t.d")]) >= first_end, events


def test_closing_waits_for_every_running_job():
    gate, order = Gate(2), []

    def hold(name: str) -> None:
        with gate:
            time.sleep(0.6)
            order.append(name)

    for name in ("a", "b"):
        threading.Thread(target=hold, args=(name,)).start()
    time.sleep(0.2)
    assert gate.full()
    with gate.whole():
        order.append("closed")
    assert order[-1] == "closed" and sorted(order[:2]) == ["a", "b"]
    assert not gate.full()


def test_an_actors_concurrency_has_room_for_its_places_one_ahead_each_stop_close_withdraw():
    spec = SlotSpec("r", "cuda", "bwrap", Limits(), "/x", width=3, warm=True)
    assert concurrency(spec) == 9
    assert concurrency(SlotSpec("r", "cuda", "bwrap", Limits(), "/x", width=3)) == 6
    assert concurrency(SlotSpec("r", "cpu", "process", Limits(), "/x")) == 4


def test_the_host_refuses_jobs_at_once_on_an_actor_under_the_process_sandbox():
    place = RayPlacement.__new__(RayPlacement)
    place.ray, place.width = None, 2  # refused before Ray is asked for anything
    ctx = SimpleNamespace(run_id="r", sandbox=SimpleNamespace(name="process"), warm=True)
    with pytest.raises(BadInput, match="--sandbox docker or bwrap"):
        place.open(ctx, [])
    with pytest.raises(ValueError, match="width 2 under process"):
        from kgb.placement.ray_slot import SlotActor

        SlotActor.__init__(SlotActor.__new__(SlotActor),
                           SlotSpec("r", "cuda", "process", Limits(), "/x", width=2), None, "a")


def test_a_local_batchs_members_share_one_timing_lock_per_gpu(tmp_path, monkeypatch):
    """Every member of a batch (one board, --jobs N on a GPU) gets the first member's locks:
    each member's own would let one member's timed window run beside another's jobs on the
    same GPU. Their job folders are all under the batch's folder (the neighbour watch's).
    And the first member's memo (kgb.runner.run_memo): baselines in flight and loop costs one
    member's job measured serve the others' jobs of the same task. The suite is read once
    for all of them (44 ms a member, before the first job starts)."""
    import kgb.runner.batch as batch
    import kgb.runner.verify as verify
    import kgb.tasks.index as task_index
    from kgb.runner.gpu_share import Shares
    from kgb.runner.run_memo import RunMemo

    calls: list[tuple[object, object]] = []
    memos: list[object] = []
    indexes: list[object] = []
    read: list[object] = []
    monkeypatch.setattr(task_index, "index_suite", lambda root: read.append(root) or object())

    def open_run(options, stack, placement, judges, cancel, sandbox, shares=None,
                 tenants=None, memo=None, index=None):
        calls.append((shares, tenants))
        memos.append(memo)
        indexes.append(index)
        ctx = SimpleNamespace(shares=shares if shares is not None else Shares.for_slots(
            ("cuda:0", "cuda:0")), memo=memo if memo is not None else RunMemo())
        return SimpleNamespace(ctx=ctx, jobs=[], slots=("cuda:0", "cuda:0"),
                               header=lambda: {})

    report = {"complete": True, "summary": {"rates": {"tasks": 0}}}
    monkeypatch.setattr(verify, "open_run", open_run)
    monkeypatch.setattr(verify, "close_run", lambda run, header, outcome: report)
    for name in ("a", "b", "c"):
        (tmp_path / "subs" / name).mkdir(parents=True)
        (tmp_path / "subs" / name / "manifest.toml").write_text("")  # opened by the fake
    base = verify.VerifyOptions(submission=tmp_path / "subs", tasks_dir=tmp_path / "tasks",
                                out_dir=tmp_path / "out",
                                device="cpu", sandbox="process")
    rows: list[dict] = []
    members = batch.members((tmp_path / "subs" / "a", tmp_path / "subs" / "b",
                             tmp_path / "subs" / "c"))
    batch._members_on_one_board(members, base, tmp_path / "out", 1, None, rows, quiet=True)
    first = calls[0][0]
    assert first is None and len(calls) == 3  # the first member makes the locks
    assert calls[1][0] is calls[2][0] is not None  # the others get the first's
    assert {tenants for _, tenants in calls} == {tmp_path / "out"}
    assert memos[0] is None and memos[1] is memos[2] is not None
    assert read == [tmp_path / "tasks"] and indexes[0] is indexes[1] is indexes[2] is not None


def test_a_gpu_actor_fits_the_cpu_share_to_its_own_node():
    """A job's CPU share (its autotune compile pool, its threads) on a GPU node is that node's
    cores over the node's jobs at once, not the driver's cores over the cluster's slots: a
    driver on a small head node gave every GPU job of a 64-core node 2 CPUs."""
    from kgb.placement.ray_slot import node_limits

    spec = SlotSpec("r", "cuda", "bwrap", Limits(cpus=2.0), "/x", width=4, fit_cpus=True)
    assert node_limits(spec, 64, 4).cpus == 4.0  # 64 cores, 4 GPUs x 4 jobs
    assert node_limits(spec, 64, 1).cpus == 16.0
    assert node_limits(spec, 8, 8).cpus == 2.0  # never below the run's
    given = SlotSpec("r", "cuda", "bwrap", Limits(cpus=3.0), "/x", width=4, fit_cpus=False)
    assert node_limits(given, 64, 1).cpus == 3.0  # --limit cpus= is the user's


def test_the_host_leaves_the_cpu_share_to_the_actors_unless_the_user_set_it():
    from kgb.runner.verify import cpus_given

    assert not cpus_given(()) and not cpus_given(("wall_time_s=5",))
    assert cpus_given(("cpus=3",))


@pytest.mark.parametrize("fits", [True, False])
def test_the_host_fits_the_cpu_share_only_where_the_placement_does_not(tmp_path, monkeypatch,
                                                                       fits):
    """`open_run` leaves a GPU job's CPU share to Ray's actors when the placement fits it on
    its own nodes (the driver's cores say nothing of theirs); a placement that does not (a
    local run's slots, RayPool) gets the host's cores over its slots, as before."""
    import contextlib
    import os
    from pathlib import Path

    import kgb.runner.verify as verify
    from kgb.sandbox.process import ProcessSandbox

    honest = Path(__file__).parents[1] / "examples" / "honest"
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    place = SimpleNamespace(device="cuda:0", slots=("cuda:0",) * 4, fits_cpus=fits,
                            identity="cuda:NVIDIA H100 80GB HBM3")
    options = verify.VerifyOptions(submission=honest, tasks_dir=honest.parents[1] / "tasks",
                                   out_dir=tmp_path / "out", device="cuda", sandbox="process",
                                   only=("activation.relu",))
    with contextlib.ExitStack() as stack:
        run = verify.open_run(options, stack, place, sandbox=ProcessSandbox())
        assert run.ctx.limits.cpus == (Limits().cpus if fits else 16.0)  # 64 cores / 4 slots
