"""Judging one job on the trusted side: for every call of every case, regenerate the inputs from
the plan's seeds, check they match the candidate's (fingerprints), compute the reference (cached
per run), read the candidate's outputs and compare.

Every file read is named by the plan's case and call indices (kgb.protocol.output_file) inside
the job's output folder: nothing the worker wrote chooses what is read. Outputs come as
safetensors (no pickle), size-capped, links refused."""

from __future__ import annotations

import dataclasses
import os
import stat
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from kgb import protocol as P
from kgb.anticheat import runtime_rules as RR
from kgb.jsonfiles import write_json_atomic
from kgb.judge import ghost, speed
from kgb.judge.encoded import decode_outputs
from kgb.judge.inplace import as_judged
from kgb.judge.truth import as_outputs, compare_for_task
from kgb.tasks.casegen import call_inputs, fingerprint, load_module
from kgb.tasks.loader import load_task
from kgb.tasks.model import Task

MAX_CACHED_REFERENCE = 16 << 20  # larger reference outputs are recomputed, not cached on disk


def judge_job(request: P.JudgeRequest, cache_dir: Path) -> P.JudgeResult | None:
    clock = _PhaseClock()
    bind_device(request.device)
    task = load_task(Path(request.task_dir))
    inputs_module = load_module(task.inputs_path, "kgb_task_inputs")
    raw_reference = load_module(task.reference_path, "kgb_task_reference")
    if request.ahead:  # the worker still runs: only torch.compile's compiles, nothing judged
        speed.compile_ahead(request, inputs_module, raw_reference)
        return None
    reference = as_judged(raw_reference, task.inplace)  # an in-place task's, on clones
    job = _Job(request, task, inputs_module, reference, cache_dir / task.id)
    claims = {c.id: c for c in request.claims}
    clock.lap("load")
    cases = tuple(job.case(i, case, claims.get(case.id)) for i, case in enumerate(request.cases))
    cases = ghost.unable_if_none_told(cases, job.idle_ghosts)  # fail closed: never "passed"
    clock.lap("cases", job.seconds)
    rechecked = speed.recheck(request, task, inputs_module, reference, None)
    clock.lap("recheck")
    baselines = speed.baselines(request, inputs_module, raw_reference)  # timed in place
    clock.lap("baselines")
    result = P.JudgeResult(cases, rechecked, baselines, tuple(clock.phases))
    write_json_atomic(Path(request.job_dir) / P.JUDGE_FILE, P.to_json(result))
    return result


def bind_device(device: str) -> None:
    """Make the job's GPU the current one. CUDA events, synchronize, the timing spin and any
    tensor a reference makes with device="cuda" follow the current device, not the inputs':
    unbound, a judge for cuda:2 timed its eager baselines on cuda:0's idle stream (about 3 us
    whatever the size) and its spins on cuda:0 stretched the timing window of the job running
    there into D304 (four H100s, --devices all, session 23)."""
    if device.startswith("cuda") and torch.device(device).index is not None:
        torch.cuda.set_device(torch.device(device))  # "cuda" alone is the current one already


class _PhaseClock:
    """Seconds per step of judging one job (kgb's own cost, kgb.metrics.overhead)."""

    def __init__(self) -> None:
        self.phases: list[P.Phase] = []
        self._last = time.perf_counter()

    def lap(self, name: str, parts: dict[str, float] | None = None) -> None:
        """The time since the last lap as phase `name`, or, given `parts` (seconds of named
        pieces of it), as `name:part` phases and `name:other` for the rest."""
        now = time.perf_counter()
        seconds, self._last = now - self._last, now
        if parts is None:
            self.phases.append(P.Phase(name, round(seconds, 4)))
            return
        self.phases += [P.Phase(f"{name}:{k}", round(v, 4)) for k, v in parts.items()]
        rest = max(0.0, seconds - sum(parts.values()))
        self.phases.append(P.Phase(f"{name}:other", round(rest, 4)))


PRIMARY_CHANGED = ("the judge's copy of the primary outputs changed in place after it was "
                   "judged; the later calls, compared or decoded against it, are not judged")


class _Loaded:
    """A call's outputs as the judge loaded them. A case's primary outputs are judged, then
    the later calls' same-bits checks and their encoded outputs (a delta from these very
    tensors, kgb.judge.encoded) rely on nothing in the judge -- a task's check, a comparison --
    having changed them in place since the load: torch counts every in-place change of a
    tensor and its views (`_version`), so a change is seen and those calls are `infra` (kgb's
    fault), never judged against other values."""

    def __init__(self, outputs: list[torch.Tensor]) -> None:
        self.outputs = outputs
        self._versions = [t._version for t in outputs]

    def untouched(self) -> bool:
        return [t._version for t in self.outputs] == self._versions


class _Job:
    def __init__(self, request: P.JudgeRequest, task: Task, inputs_module: ModuleType,
                 reference: Any, cache: Path) -> None:
        self.request, self.task = request, task
        self.inputs_module, self.reference, self.cache = inputs_module, reference, cache
        self.out_dir, self.out_ident = P.outputs_folder(request)
        self.statistical = task.compare == "statistical"
        self.primary_inputs: tuple | None = None  # for a Random task's check_reseed
        self.idle_ghosts: set[tuple[int, int]] = set()  # (case, call): ghosts that cannot tell
        # judging time per call kind: the primary calls, and the layer-2/3 calls around them
        self.seconds = {"primary": 0.0, "checks": 0.0}

    def case(self, index: int, case: P.CaseSpec, claim: P.CaseRecord | None) -> P.CaseJudgement:
        if case.skip is not None or claim is None or claim.skipped is not None:
            return P.CaseJudgement(case.id)
        judged: list[P.CallJudgement] = []
        primary: _Loaded | None = None
        for call_index, call in enumerate(case.calls):
            record = claim.calls[call_index] if call_index < len(claim.calls) else None
            began = time.perf_counter()
            if primary is not None and not primary.untouched():
                verdict, loaded = P.CallJudgement(
                    index=call_index, kind=call.kind, status=P.CaseStatus.INFRA,
                    message=PRIMARY_CHANGED), None
            else:
                verdict, loaded = self.call(index, call_index, case, call, record,
                                            primary.outputs if primary else None)
            kind = "primary" if call.kind == P.CallKind.PRIMARY else "checks"
            self.seconds[kind] += time.perf_counter() - began
            if call.kind == P.CallKind.PRIMARY:
                primary = loaded
                if loaded is not None and not loaded.untouched():  # changed while judged
                    verdict = dataclasses.replace(verdict, status=P.CaseStatus.INFRA,
                                                  message=PRIMARY_CHANGED, rule=None)
            judged.append(verdict)
        return P.CaseJudgement(case.id, tuple(judged))

    def call(self, case_index: int, call_index: int, case: P.CaseSpec, call: P.CallSpec,
             record: P.CallRecord | None, primary: list[torch.Tensor] | None
             ) -> tuple[P.CallJudgement, _Loaded | None]:
        base: dict[str, Any] = dict(index=call_index, kind=call.kind)
        if record is None or record.kind != call.kind or record.status != P.CaseStatus.RETURNED \
                or not record.outputs:
            return P.CallJudgement(status=P.CaseStatus.NOT_RUN, **base), None
        device = self.request.device
        inputs = call_inputs(self.inputs_module, case.dims, case.dtype, case.mode, case.layout,
                             self.request.layout_inputs, self.request.seed_input, device,
                             call.seed, call.perturb_seed, call.seed_value)
        if record.input_fingerprint != fingerprint(inputs):
            return P.CallJudgement(status=P.CaseStatus.INFRA, message="input fingerprint "
                                   "differs between the workers", **base), None
        try:
            outputs = load_outputs(self.out_dir, P.output_file(case_index, call_index), device,
                                   self.request.output_cap, self.out_ident,
                                   None if call.kind == P.CallKind.PRIMARY else primary)
        except (OSError, ValueError) as exc:  # the file is untrusted
            return P.CallJudgement(status=P.CaseStatus.FAILED,
                                   message=f"unreadable outputs: {P.cut(str(exc), 300)}",
                                   **base), None
        loaded = _Loaded(outputs)
        passed, max_abs, rel_l2, message = self.compare(outputs, inputs, case, call)
        rule = None
        if call.kind == P.CallKind.GHOST:
            # With its Triton launches turned into no-ops the kernel must NOT be right --
            # unless what a no-op leaves is this case's answer already (kgb.judge.ghost).
            idle = ghost.idle_answer(outputs, inputs, self.task.inplace) if passed else None
            if idle is not None:
                self.idle_ghosts.add((case_index, call_index))
                message, passed = ghost.INCONCLUSIVE.format(what=idle), False
            elif passed:
                rule, message = RR.GHOST_REPLAY_CORRECT.id, (
                    "with the file's Triton launches turned into no-ops the outputs were still "
                    "right: the kernels did not do the work")
            passed = not passed
            message = message if rule or idle else "without Triton launches the outputs are " \
                                                   "wrong, as they must be"
        elif passed and call.kind == P.CallKind.SAME_VALUES and primary is not None:
            if (self.task.deterministic or self.statistical) and not _same_bits(outputs, primary):
                passed, rule = False, RR.NONDETERMINISTIC.id
                message = ("the same inputs gave different bits on a second call" +
                           (" (the same seed must repeat)" if self.statistical else ""))
        elif passed and call.kind == P.CallKind.RESEED and primary is not None:
            # Another seed must give an independent draw, not the primary's shifted or flipped.
            # The same bits are D303 only where the task's own test (proved false-failure bound)
            # says the two draws depend: a tiny case's 51 dropout decisions repeat by chance
            # with probability up to 4e-5, which an honest kernel must not pay for.
            problems: list[str] = []
            judged = self.primary_inputs is not None and hasattr(self.reference, "check_reseed")
            if judged:
                problems = list(self.reference.check_reseed(tuple(primary), self.primary_inputs,
                                                             tuple(outputs), inputs))
            if _same_bits(outputs, primary) and (problems or not judged):
                passed, rule = False, RR.SEED_IGNORED.id
                message = "another seed gave the very same output: the seed is ignored"
            else:
                passed, message = not problems, "; ".join(problems)
        if call.kind == P.CallKind.PRIMARY:
            self.primary_inputs = inputs
        status = P.CaseStatus.PASSED if passed else P.CaseStatus.FAILED
        return P.CallJudgement(status=status, max_abs=max_abs, rel_l2=rel_l2, message=message,
                               rule=rule, **base), loaded

    def compare(self, outputs: list[torch.Tensor], inputs: tuple, case: P.CaseSpec,
                call: P.CallSpec) -> tuple[bool, float | None, float | None, str]:
        if self.statistical:
            problems = self.reference.check(tuple(outputs), inputs)
            return not problems, None, None, "; ".join(problems)
        expected = self.expected(inputs, case, call)
        result = compare_for_task(self.task, self.reference, outputs, expected, inputs,
                                  case.dtype)
        return result.passed, result.max_abs, result.rel_l2, result.message

    def expected(self, inputs: tuple, case: P.CaseSpec, call: P.CallSpec) -> list[torch.Tensor]:
        key = f"{case.id}-{call.seed}-{call.perturb_seed}-{call.seed_value}"
        path = self.cache / f"{key}.safetensors"
        device = self.request.device
        if path.is_file():
            tensors = load_file(str(path), device=device)
            return [tensors[P.OUTPUT_KEY.format(i)] for i in range(len(tensors))]
        with torch.no_grad():
            produced = self.reference.reference(*inputs)
        outputs = as_outputs(produced)
        if sum(t.numel() * t.element_size() for t in outputs) <= MAX_CACHED_REFERENCE:
            self.cache.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            save_file({P.OUTPUT_KEY.format(i): t.detach().contiguous().cpu()
                       for i, t in enumerate(outputs)}, str(tmp))
            os.replace(tmp, path)
        return outputs


def load_outputs(out_dir: Path, name: str, device: str, cap: int,
                 ident: tuple[int, ...] = (),
                 primary: list[torch.Tensor] | None = None) -> list[torch.Tensor]:
    """The outputs of one call, from the one file the plan names, inside `out_dir` only, and
    no larger than the output folder the sandbox allowed (`cap`); decoded (kgb.encoding) with
    this case's `primary` outputs as the judge loaded them.

    `out_dir` may be the sandbox's own folder, handed over in place (/proc/PID/root/...: a
    magic link that `resolve()` would turn into a host path): nothing is resolved. The folder
    is opened and, given `ident`, must be that (st_dev, st_ino); the file is opened inside it
    by its plain name, never through a link, never blocking on a fifo, and must be a regular
    file within the cap; safetensors then reads that very file (/proc/self/fd)."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError("the output file is not inside the job's output folder")
    try:
        folder = os.open(out_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise ValueError(P.MISSING_OUTPUT) from exc
    try:
        st = os.fstat(folder)
        if ident and (st.st_dev, st.st_ino) != tuple(ident):
            raise ValueError("the output folder is not the sandbox's it was handed over in")
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                         dir_fd=folder)
        except OSError as exc:  # missing, a link (ELOOP), unreadable
            raise ValueError(P.MISSING_OUTPUT) from exc
    finally:
        os.close(folder)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # a fifo, a folder, a device: opened, never read
            raise ValueError(P.MISSING_OUTPUT)
        if st.st_size > cap:
            raise ValueError("the output file is over the size cap")
        try:
            tensors = load_file(f"/proc/self/fd/{fd}", device=device)
        except SafetensorError as exc:  # a header it refuses: the file is the candidate's
            raise ValueError(f"not a safetensors file: {P.cut(str(exc), 200)}") from None
    finally:
        os.close(fd)
    return decode_outputs(tensors, primary, cap)


def _same_bits(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype and
        torch.equal(x.contiguous().view(-1).view(torch.uint8),
                    y.contiguous().view(-1).view(torch.uint8)) for x, y in zip(a, b))

