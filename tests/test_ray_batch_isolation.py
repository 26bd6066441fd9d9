"""A Ray batch's members on one actor, without a cluster: under a backend that does not hide
the actor's folder from candidates (process), a member's job never meets the reference outputs
another member's job left in the slot's judge cache — the same batch seed makes them the very
files its own judge would compare against, readable (and plantable) by its candidate; under
docker and bwrap, which hide it, members share them (computed once per actor). Seen end to
end before the fix (`--sandbox process --ray local --static off`, four addcmul members on two
actors): each actor's second candidate listed the first member's 17 cached references."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from kgb.placement.ray_slot import Gate, SlotActor, SlotSpec
from kgb.sandbox.base import Limits


def _actor(tmp_path: Path, monkeypatch, sandbox: str, seen: list[tuple[str, bool]]) -> SlotActor:
    import kgb.runner.execute as execute

    slot = SlotActor.__new__(SlotActor)
    slot.spec = SlotSpec("r", "cpu", sandbox, Limits(), str(tmp_path), warm=False)
    slot.gate, slot.cancel = Gate(), threading.Event()
    slot.ctx = SimpleNamespace(out_dir=tmp_path / "run", run_id="r")
    slot.members = {key: SimpleNamespace(out_dir=tmp_path / f"run-{key}", run_id=key)
                    for key in ("a", "b")}
    slot.node, slot.node_ip, slot.slot, slot.name = "n", "127.0.0.1", "cpu", "kgb-slot-0"
    slot._localize = lambda job, member=None: job  # type: ignore[method-assign]
    cached = tmp_path / "run" / "refcache" / "math.addcmul" / "tiny-1-None-None.safetensors"

    def finish(prepared, ctx):  # the candidate runs, then its judge fills the slot's cache
        seen.append((ctx.run_id, cached.exists()))
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(b"reference of " + ctx.run_id.encode())
        (ctx.out_dir / "jobs" / prepared.task.id).mkdir(parents=True)

    monkeypatch.setattr(execute, "prepare_job", lambda job, ctx: job)
    monkeypatch.setattr(execute, "finish_job", finish)
    return slot


@pytest.mark.parametrize("sandbox, shared", [("process", False), ("bwrap", True),
                                             ("docker", True)])
def test_members_share_an_actors_references_only_where_the_sandbox_hides_them(
        tmp_path, monkeypatch, sandbox, shared):
    seen: list[tuple[str, bool]] = []
    slot = _actor(tmp_path, monkeypatch, sandbox, seen)
    job = SimpleNamespace(task=SimpleNamespace(id="math.addcmul"))
    for member in ("a", "b", "b"):
        slot.run(job, member)
    # a's job meets an empty cache; b's first meets a's references only where they are hidden
    # from its candidate; b's second meets b's own, as a local member's second job would
    assert seen == [("a", False), ("b", shared), ("b", True)], seen
