"""What a run's jobs compute once for each other on the trusted side (issue 24, "compute once"),
beside the baseline store (kgb.runner.baseline_cache), shared by every member of a batch:

- `Flights`: the baselines a job is measuring now. Another job of the run that needs the same
  figures waits for them instead of measuring them again: each measurement is a timing
  window that freezes every job on the GPU (run 24: judges held the lock 90.7 s of a 195 s
  run with a cold store, 1.8 s with a warm one).
- `LoopCosts`: the timing loop's own cost per call with no work in it (the judge's empty
  loop, which D304's window check subtracts), per device and case, as the first job of the
  run to time that case measured it in an exclusive window. A later job's judge takes it
  instead of asking for a window of its own; with its baselines stored too, its judgement
  freezes no one. The figure is kgb's own loop on kgb's own inputs, not the candidate's."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from kgb import protocol as P

# How long a job waits for another job of its run that is measuring the same baselines
# (its judge's torch.compile included) before it measures them itself.
CLAIM_WAIT_S = 240.0


class Flights:
    """Baselines being measured by a job of the run, by their store digest."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._measuring: dict[str, threading.Event] = {}
        self.waited = 0  # times a job waited for another's measurement

    def claim_or_wait(self, missing: list[str], claims: list[str], cancel: threading.Event,
                      deadline: float) -> bool:
        """Claim every digest of `missing` no one measures (appended to `claims`) and return
        True; or, when some are being measured by another job, wait for those (holding no
        claim: no two jobs wait on each other) and return False: the caller looks again.
        Past `deadline` or once the run stops, whatever is missing is claimed."""
        with self._lock:
            busy = [self._measuring[d] for d in missing if d in self._measuring]
            if not busy or time.monotonic() >= deadline or cancel.is_set():
                for name in missing:
                    if name not in self._measuring:
                        self._measuring[name] = threading.Event()
                        claims.append(name)
                return True
            self.waited += 1
        for event in busy:
            while not event.wait(0.1) and not cancel.is_set() and time.monotonic() < deadline:
                pass
        return False

    def release(self, claims: list[str]) -> None:
        """The claiming job stored its figures or ended: its waiters look again."""
        with self._lock:
            for name in claims:
                event = self._measuring.pop(name, None)
                if event is not None:
                    event.set()
        claims.clear()


def _loop_key(device: str, task_id: str, case: P.CaseSpec) -> tuple:
    """What the empty loop's cost depends on: the device and the inputs the loop draws for
    each call (the case's shapes, dtype, mode and layout; not its seed)."""
    return (device, task_id, case.id, tuple(sorted(case.dims.items())), case.dtype, case.mode,
            case.layout)


class LoopCosts:
    """The empty loop's cost per call, per (device, task, case), as first measured in the run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._costs: dict[tuple, float] = {}

    def lookup(self, device: str, task_id: str, cases: tuple[P.CaseSpec, ...],
               timed: tuple[str, ...]) -> tuple[P.CachedLoop, ...]:
        specs = {c.id: c for c in cases}
        with self._lock:
            found = [(case, self._costs.get(_loop_key(device, task_id, specs[case])))
                     for case in timed if case in specs]
        return tuple(P.CachedLoop(case, cost) for case, cost in found if cost is not None)

    def commit(self, device: str, task_id: str, cases: tuple[P.CaseSpec, ...],
               judged: P.JudgeResult | None) -> None:
        """Keep what the judge measured itself, in an exclusive window (a baseline with an
        error, the shared-GPU one included, has no figure to keep)."""
        if judged is None:
            return
        specs = {c.id: c for c in cases}
        with self._lock:
            for base in judged.baselines:
                if base.error is None and base.overhead_ms is not None and \
                        not base.overhead_cached and base.case in specs:
                    self._costs.setdefault(_loop_key(device, task_id, specs[base.case]),
                                           base.overhead_ms)


@dataclass(frozen=True)
class RunMemo:
    """The run's (a batch's: every member's) shared memo."""

    flights: Flights = field(default_factory=Flights)
    loops: LoopCosts = field(default_factory=LoopCosts)
