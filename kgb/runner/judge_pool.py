"""Long-lived trusted judges, one per busy device slot (see kgb.judge).

A job borrows an idle judge for its device (or starts one), sends its folder, and waits for the
answer under a deadline and the run's cancel event. A judge that errs, times out, dies or is
cancelled is killed and never reused: the next job starts a fresh one. Judges run in their own
session, so a Ctrl-C on the terminal reaches kgb alone, which then closes the pool."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import kgb
from kgb.protocol import JudgeRequest, dumps
from kgb.runner.gpu_share import GpuShare, Tenant
from kgb.sandbox.subproc import ProcessTree

KGB_ROOT = Path(kgb.__file__).resolve().parent
RECYCLE_JOBS = 64  # jobs a judge serves before it is replaced by a fresh process


class _JudgeTree(ProcessTree):
    """The judge as a tenant of a shared GPU: stopped whole during another holder's window.
    It has no supervisor to credit: the host moves the judge's deadline out itself."""

    def say(self, line: bytes) -> None:
        pass


class JudgeProcess:
    def __init__(self, cache: Path, device: str, log: IO[bytes], compiles: bool = False) -> None:
        env = dict(os.environ, TRITON_INTERPRET="1") if device == "cpu" else dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(KGB_ROOT.parent),
                                                        os.environ.get("PYTHONPATH")) if p)
        if device != "cpu":  # cuda:N in the PCI bus order the host and the sandbox count in,
            env.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")  # even before the host set it
        self.device = device
        self.jobs = 0
        # `compiles`: it will torch.compile references (GPU, timed, both baselines), so it
        # imports dynamo and inductor before its first request, not on the job's path
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "kgb.judge", str(cache), device]
            + (["compile"] if compiles else []), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
            start_new_session=True, close_fds=True)
        self._answers: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._answers.put(line.strip())
        self._answers.put(None)  # the judge exited

    def judge(self, request: JudgeRequest, timeout_s: float, cancel: threading.Event,
              share: GpuShare | None = None) -> str:
        """'ok', 'error', 'timeout', 'cancelled' or 'died'. On a GPU other jobs share, the
        judge is one of its tenants for the judgement: frozen during their timing windows,
        and holding the GPU's lock itself only while it times (kgb/judge/gpu_lock.py)."""
        assert self._proc.stdin is not None
        tenant = share.join(f"judge {request.task_dir}", _JudgeTree(self._proc.pid), cancel) \
            if share is not None else None
        try:
            return self._judge(request, timeout_s, cancel, share, tenant)
        finally:
            if share is not None and tenant is not None:
                share.leave(tenant)

    def _judge(self, request: JudgeRequest, timeout_s: float, cancel: threading.Event,
               share: GpuShare | None, tenant: Tenant | None) -> str:
        if not self._say(dumps(request)):
            return "died"
        deadline = time.monotonic() + timeout_s
        while True:
            if cancel.is_set():
                return "cancelled"
            # the seconds other jobs' windows kept the judge frozen are not its time
            if time.monotonic() > deadline + (tenant.frozen_seconds() if tenant else 0.0):
                return "timeout"
            try:
                answer = self._answers.get(timeout=0.1)
            except queue.Empty:
                continue
            if answer is None:
                return "died"
            if answer == "lock +":
                if share is None or tenant is None:
                    granted = "none"
                else:
                    exclusive = share.acquire(tenant, timeout_s, cancel)
                    granted = {True: "granted exclusive", False: "granted shared",
                               None: "stopped"}[exclusive]
                if not self._say(granted):
                    return "died"
                continue
            if answer == "lock -":
                if share is not None and tenant is not None:
                    share.release(tenant)
                continue
            return answer if answer in ("ok", "ok retire") else "error"

    def _say(self, line: str) -> bool:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            return True
        except OSError:
            return False

    def close(self, kill: bool = False) -> None:
        """End the judge: politely (stdin closed) when it is idle, at once when `kill`."""
        if not kill:
            try:
                if self._proc.stdin is not None:
                    self._proc.stdin.close()
                self._proc.wait(timeout=5)
                return
            except (OSError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._proc.wait()


class Reservation:
    """One job's claim on a spare judge of its device (JudgePool.reserve)."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.settled = False


class JudgePool:
    def __init__(self, cache: Path, log_path: Path) -> None:
        self._cache = cache
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in close()
        self._born = time.monotonic()
        self._idle: list[JudgeProcess] = []
        self._all: list[JudgeProcess] = []
        self._waiting: dict[str, int] = {}  # device -> jobs in flight not yet at their judge
        self._lock = threading.Lock()
        self.compiles = False  # judges started from now on import torch.compile's parts first

    def judge(self, request: JudgeRequest, timeout_s: float, cancel: threading.Event,
              share: GpuShare | None = None, reservation: Reservation | None = None,
              held: JudgeProcess | None = None) -> str:
        """Judge one job; the judge's own report is JOB_DIR/judge.json (and judge.log).
        `held`: the judge this job took ahead (`ahead`), else an idle one is borrowed."""
        judge = held if held is not None else self._borrow(request.device, reservation)
        status = judge.judge(request, timeout_s, cancel, share)
        self._back(judge, status)
        return "ok" if status == "ok retire" else status

    def ahead(self, request: JudgeRequest, timeout_s: float, cancel: threading.Event,
              share: GpuShare | None, reservation: Reservation | None) -> JudgeProcess | None:
        """A job's compile-ahead request (JudgeRequest.ahead) on a judge it then keeps for its
        judgement (`judge(..., held=)`): the compiled reference lives in that process. None:
        the judge failed or was cancelled (retired), and the judgement borrows another."""
        judge = self._borrow(request.device, reservation)
        status = judge.judge(request, timeout_s, cancel, share)
        if status == "ok":
            return judge
        self._back(judge, status)
        return None

    def give_back(self, judge: JudgeProcess) -> None:
        """A judge taken by `ahead` whose job was not judged after all."""
        self._back(judge, "ok")

    def _back(self, judge: JudgeProcess, status: str) -> None:
        """A judge that answered goes back to the idle ones. A judge whose canary failed, or
        that has served RECYCLE_JOBS requests, is retired after an answer that stands: the next
        job on its device gets a fresh one."""
        judge.jobs += 1
        keep = status == "ok" and judge.jobs < RECYCLE_JOBS
        with self._lock:
            if keep:
                self._idle.append(judge)
            else:
                self._all.remove(judge)
        if not keep:
            why = "its canary failed" if status == "ok retire" else \
                "recycled" if status == "ok" else status
            self._note(f"judge {judge.pid} on {judge.device} retired after {judge.jobs} "
                       f"job(s): {why}")
            judge.close(kill=status in ("timeout", "cancelled"))

    @contextlib.contextmanager
    def reserve(self, device: str) -> Iterator[Reservation]:
        """A job in flight on `device` (execute: from its worker's start to its judgement):
        while it runs, a judge for it is started unless an idle one is spare, so its
        interpreter and torch import (seconds) overlap the candidate's run instead of
        following it. One spare judge per job in flight: --jobs N slots of a GPU finish close
        together, and with one judge started ahead for them all the others started theirs at
        need (a median 3.8 s a job, docs/performance.md run 23). The judge imports only the
        suite's task files and waits for its request; the candidate cannot reach it."""
        reservation = Reservation(device)
        with self._lock:
            self._waiting[device] = self._waiting.get(device, 0) + 1
            spare = sum(judge.device == device for judge in self._idle)
            judge = None
            if spare < self._waiting[device]:
                judge = JudgeProcess(self._cache, device, self._log, self.compiles)
                self._all.append(judge)
                self._idle.append(judge)
        if judge is not None:
            self._note(f"judge {judge.pid} on {device} started ahead")
        try:
            yield reservation
        finally:
            self._settle(reservation)

    def prestart(self, device: str) -> None:
        """A judge for `device` started as the run opens, before the host's own start-up
        (its torch import, CUDA's, planning): the first job's judge is ready when the job
        begins (a cold GELU job waited 8.9 s for its judge's compile ahead, run 25)."""
        with self._lock:
            judge = JudgeProcess(self._cache, device, self._log, self.compiles)
            self._all.append(judge)
            self._idle.append(judge)
        self._note(f"judge {judge.pid} on {device} started with the run")

    def keep_devices(self, devices: set[str]) -> None:
        """End the idle judges of devices the run does not use (one started with the run for
        a GPU the host then found it could not use)."""
        with self._lock:
            extra = [j for j in self._idle if j.device not in devices]
            self._idle = [j for j in self._idle if j.device in devices]
            self._all = [j for j in self._all if not any(j is e for e in extra)]
        for judge in extra:
            self._note(f"judge {judge.pid} on {judge.device} ended: the run does not use it")
            judge.close(kill=True)

    def _settle(self, reservation: Reservation) -> None:
        """The reservation no longer waits for a judge: taken, or its job ended unjudged."""
        with self._lock:
            if not reservation.settled:
                reservation.settled = True
                self._waiting[reservation.device] -= 1

    def _borrow(self, device: str, reservation: Reservation | None = None) -> JudgeProcess:
        if reservation is not None:
            self._settle(reservation)
        with self._lock:
            for judge in self._idle:
                if judge.device == device:
                    self._idle.remove(judge)
                    return judge
            judge = JudgeProcess(self._cache, device, self._log, self.compiles)
            self._all.append(judge)
        self._note(f"judge {judge.pid} on {device} started at need (none idle)")
        return judge

    def _note(self, line: str) -> None:
        """A line of the pool's own in judges.log, on the run's clock: how many judges were
        started and why each was retired (performance, never evidence)."""
        try:
            self._log.write(f"kgb judges {time.monotonic() - self._born:.3f} s: {line}\n"
                            .encode())
            self._log.flush()
        except (OSError, ValueError):  # a closed log at the run's end: nothing to keep
            pass

    def trim(self) -> None:
        """End every idle judge but one per device: each holds a CUDA context (hundreds of MB)
        beside a job that runs again alone on its GPU (kgb.runner.schedule)."""
        with self._lock:
            kept: dict[str, JudgeProcess] = {}
            extra = [j for j in self._idle if kept.setdefault(j.device, j) is not j]
            self._idle = list(kept.values())
            self._all = [j for j in self._all if not any(j is e for e in extra)]
        for judge in extra:
            judge.close(kill=True)

    def close(self) -> None:
        with self._lock:
            judges, self._idle, self._all = list(self._all), [], []
        # Killed, not asked to exit: every answer is in (a judge writes its files before it
        # answers) and a polite exit is torch's interpreter teardown, seconds at the end of
        # every run (2.8 s of a one-kernel run on the loaded 2-core machine).
        for judge in judges:
            judge.close(kill=True)
        self._log.close()

    def __enter__(self) -> JudgePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
