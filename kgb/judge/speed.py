"""The judge's part of timing (trusted, on the same GPU after the worker has finished):
re-check the timed outputs the supervisor chose against their own references and against the
fingerprints committed before the choice; time PyTorch eager and torch.compile of the
reference with the very loop the worker used, on the same inputs; and measure that loop's own
cost per call with a no-op in the call's place — the overhead the supervisor's window check
subtracts."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from kgb import protocol as P
from kgb.anticheat import runtime_rules as RR
from kgb.bench.l2 import L2Reset
from kgb.bench.timer import capture_clocks, time_loop
from kgb.judge.gpu_lock import Window
from kgb.judge.truth import as_outputs, compare_for_task
from kgb.tasks.casegen import call_inputs, outputs_fingerprint, timed_seed
from kgb.tasks.model import Task

SHARED = ("timed while the GPU was not the judge's alone (the other jobs' work did not drain): "
          "not counted")
COMPILE_BUDGET_S = 180.0  # per job: torch.compile of the reference, over all its shapes
BASELINE_BUDGET_MS = 200.0


def recheck(request: P.JudgeRequest, task: Task, inputs_module: ModuleType,
            reference: Any, load: Any) -> tuple[P.TimedCheck, ...]:
    """`reference`: the module as judged (kgb.judge.inplace.as_judged)."""
    from kgb.judge.judge import load_outputs

    specs = {c.id: (i, c) for i, c in enumerate(request.cases)}
    out_dir = P.outputs_folder(request)[0]  # the sandbox's own where handed over in place
    checks = []
    for commit in request.commits:
        if commit.case not in specs:
            continue
        index, case = specs[commit.case]
        for rep in commit.keep:
            checks.append(_one(request, task, inputs_module, reference, out_dir, index, case,
                               commit, rep, load_outputs))
    return tuple(checks)


def _one(request, task, inputs_module, reference, out_dir, index, case, commit, rep,
         load_outputs) -> P.TimedCheck:
    try:
        outputs = load_outputs(out_dir, P.timed_file(index, rep), request.device,
                               request.output_cap, request.outputs_ident)
    except (OSError, ValueError) as exc:
        return P.TimedCheck(case.id, rep, P.CaseStatus.FAILED, P.cut(str(exc), 200),
                            RR.TIMED_OUTPUT_WRONG.id)
    if rep >= len(commit.fingerprints) or \
            outputs_fingerprint(tuple(outputs)) != commit.fingerprints[rep]:
        return P.TimedCheck(case.id, rep, P.CaseStatus.FAILED,
                            "the saved outputs are not the ones committed after timing",
                            RR.TIMED_OUTPUT_SWAPPED.id)
    misstated = size_claim_problem(commit, outputs)
    if misstated:
        return P.TimedCheck(case.id, rep, P.CaseStatus.FAILED, misstated,
                            RR.TIMED_OUTPUT_SWAPPED.id)
    inputs = _timed_inputs(request, inputs_module, case, rep + 1)
    if task.compare == "statistical":
        problems = reference.check(tuple(outputs), inputs)
        ok, message = not problems, "; ".join(problems)
    else:
        with torch.no_grad():
            produced = reference.reference(*inputs)
        expected = as_outputs(produced)
        result = compare_for_task(task, reference, outputs, expected, inputs, case.dtype)
        ok, message = result.passed, result.message
    if ok:
        return P.TimedCheck(case.id, rep, P.CaseStatus.PASSED)
    return P.TimedCheck(case.id, rep, P.CaseStatus.FAILED, P.cut(message, 300),
                        RR.TIMED_OUTPUT_WRONG.id)


def size_claim_problem(commit: P.Commit, outputs: list[torch.Tensor]) -> str | None:
    """The supervisor kept fewer timed outputs when the worker said they were large
    (keep_count): a size overstated to be re-checked less is caught here — judged by what it
    bought, so outputs whose size varies from call to call are no offence in themselves."""
    from kgb.sandbox._supervisor import keep_count

    saved = sum(o.numel() * o.element_size() for o in outputs)
    if keep_count(len(commit.fingerprints), saved) <= len(commit.keep):
        return None
    return (f"the worker told the supervisor its timed outputs take {commit.bytes} bytes, so "
            f"it re-checked {len(commit.keep)}; they take {saved}")


def _timed_inputs(request: P.JudgeRequest, inputs_module: ModuleType, case: P.CaseSpec,
                  rep: int) -> tuple:
    return call_inputs(inputs_module, case.dims, case.dtype, case.mode, case.layout,
                       request.layout_inputs, request.seed_input, request.device,
                       timed_seed(case.seed, rep))


def baselines(request: P.JudgeRequest, inputs_module: ModuleType,
              reference: ModuleType) -> tuple[P.Baseline, ...]:
    """Per timed case: the loop's own cost (always: the D304 window check subtracts it), then
    PyTorch eager and torch.compile as `request.baselines` asks."""
    if not request.device.startswith("cuda") or not request.timed_cases:
        return ()
    capture_clocks()
    reset = L2Reset(torch.device(request.device))
    fns = Baselined(reference)  # compiled ahead, or at first need
    specs = {c.id: c for c in request.cases}
    # figures from the host's trusted store (kgb.runner.baseline_cache): not timed again
    cached = {(c.case, c.kind): c for c in request.cached}
    loops = {c.case: c.overhead_ms for c in request.loops}  # the run measured these already
    # On a shared GPU the judge times alone: one window of the GPU's lock (every job frozen,
    # the GPU drained) for all its timing, given back only while torch.compile compiles.
    window = Window()
    try:
        return _timed_baselines(request, inputs_module, specs, cached, loops, reset, fns,
                                window)
    finally:
        window.give()


# torch.compile of a reference, kept by this judge process across its requests: a job's
# compile-ahead request (JudgeRequest.ahead) compiles for its timed cases' shapes while the
# worker runs, and the judgement that follows times that very object, its dynamo cache warm.
# Keyed by the reference file's bytes and the function's name; the last few tasks only.
@dataclass
class _Kept:
    eager: Any
    compiled: Any = None  # its torch.compile, made at first need
    ahead: set = field(default_factory=set)  # the shapes a compile ahead ran it on


_COMPILED: dict[tuple[str, str], _Kept] = {}
COMPILED_KEPT = 4


class Baselined:
    """The function a reference's baselines time, and its torch.compile made at first need
    (importing dynamo costs seconds a judgement given every compile figure never pays)."""

    def __init__(self, reference: ModuleType) -> None:
        import hashlib

        eager, self.source = baseline_function(reference)
        path = getattr(reference, "__file__", None)
        key = (hashlib.sha256(Path(path).read_bytes()).hexdigest(), self.source) \
            if path else None
        # the same objects as this process's earlier request on this file, if any
        kept = _COMPILED.pop(key, None) if key is not None else None
        self._kept = kept if kept is not None else _Kept(eager)
        self.eager = self._kept.eager
        if key is not None:
            _COMPILED[key] = self._kept  # most recent last
            while len(_COMPILED) > COMPILED_KEPT:
                _COMPILED.pop(next(iter(_COMPILED)))

    def compiled(self) -> Any:
        if self._kept.compiled is None:
            _allow_recompiles()
            self._kept.compiled = torch.compile(self._kept.eager)
        return self._kept.compiled

    def mark_ahead(self, case: P.CaseSpec) -> None:
        """Its compiled function has run on this case's shapes (a compile ahead)."""
        self._kept.ahead.add(_shapes(case))

    def ahead(self, case: P.CaseSpec) -> bool:
        """Whether a compile ahead already ran the compiled function on these shapes: its
        first call in the judgement compiles nothing, and needs no window of its own."""
        return _shapes(case) in self._kept.ahead


def _shapes(case: P.CaseSpec) -> tuple:
    return (tuple(sorted(case.dims.items())), case.dtype, case.mode, case.layout)


def compile_ahead(request: P.JudgeRequest, inputs_module: ModuleType,
                  reference: ModuleType) -> int:
    """While the job's worker runs: torch.compile of the reference for each case it will time
    (its first call per shape compiles), nothing timed, no window of the GPU's lock asked for:
    the compiles are CPU work and the first calls' GPU work is frozen, as a tenant's, through
    the worker's timed windows (kgb.runner.gpu_share). How many cases compiled. A failure is
    left for the judgement, which meets it again and records it."""
    if not request.device.startswith("cuda") or request.baselines != "all":
        return 0
    specs = {c.id: c for c in request.cases}
    fns = Baselined(reference)
    compiled = fns.compiled()
    started, done = time.monotonic(), 0
    for case_id in request.timed_cases:
        case = specs.get(case_id)
        if case is None or time.monotonic() - started > COMPILE_BUDGET_S:
            continue
        try:
            with torch.no_grad():
                compiled(*_timed_inputs(request, inputs_module, case, 0))
            torch.cuda.synchronize()  # a judge answers after its last GPU work has ended
            fns.mark_ahead(case)
            done += 1
        except Exception:  # the judgement meets it again and records it
            torch.cuda.synchronize()
    return done


def _given(case_id: str, baselines: str, eager: P.CachedBaseline | None,
           compiled: P.CachedBaseline | None, loop_ms: float, source: str) -> P.Baseline:
    """A case whose every figure the host gave: the store's baselines, the run's loop cost."""
    eager_ms = eager.times_ms if eager is not None and baselines != "none" else ()
    compile_ms = compiled.times_ms if compiled is not None and baselines == "all" else ()
    return P.Baseline(
        case_id, eager_ms, compile_ms,
        None if baselines == "all" else f"not timed (--baselines {baselines})",
        loop_ms, source=source, graph=eager.graph if eager_ms and eager else False,
        eager_cached_at=eager.measured_at if eager_ms and eager else None,
        compile_cached_at=compiled.measured_at if compile_ms and compiled else None,
        overhead_cached=True)


def _timed_baselines(request: P.JudgeRequest, inputs_module: ModuleType,
                     specs: dict[str, P.CaseSpec], cached: dict, loops: dict[str, float],
                     reset: L2Reset, fns: Baselined,
                     window: Window) -> tuple[P.Baseline, ...]:
    eager_fn, source = fns.eager, fns.source
    compile_spent = 0.0
    out = []
    for case_id in request.timed_cases:
        case = specs.get(case_id)
        if case is None:
            continue

        def inputs_for(rep: int, case: P.CaseSpec = case) -> tuple:
            return _timed_inputs(request, inputs_module, case, rep)

        eager_ms: tuple[float, ...] = ()
        graph = case_id in request.graph_cases  # like for like with the kernel's replays
        eager_graph = False
        eager_hit, compile_hit = cached.get((case_id, "eager")), cached.get((case_id, "compile"))
        loop_ms = loops.get(case_id)
        if loop_ms is not None and (request.baselines == "none" or eager_hit is not None) and \
                (request.baselines != "all" or
                 (compile_hit is not None and compile_hit.graph == graph)):
            # nothing of this case to time: no window, no job frozen for it
            out.append(_given(case_id, request.baselines, eager_hit, compile_hit, loop_ms,
                              source))
            continue
        alone = False
        try:
            with torch.no_grad():
                alone = window.take()
                # the window check (D304) needs it: measured here unless an earlier job of
                # the run measured it for this case (request.loops, handled above)
                noop = time_loop(lambda inputs: None, inputs_for, reset=reset, warmup=1,
                                 budget_ms=0.0, min_reps=10, max_reps=10, keep=False)
                if eager_hit is not None and request.baselines != "none":
                    eager_ms, eager_graph = eager_hit.times_ms, eager_hit.graph
                elif request.baselines != "none" and alone:
                    eager = time_loop(_caller(eager_fn), inputs_for, reset=reset,
                                      budget_ms=BASELINE_BUDGET_MS, keep=False, graph=graph)
                    eager_ms = tuple(round(t, 6) for t in eager.times_ms)
                    eager_graph = eager.graph
        except Exception as exc:  # the reference itself failed on the GPU: kgb's problem
            out.append(P.Baseline(case_id, error=P.cut(f"{type(exc).__name__}: {exc}", 300)))
            continue
        if not alone:  # fail closed: neither the loop's cost nor a baseline from a shared GPU
            out.append(P.Baseline(case_id, error=SHARED))
            window.give()  # the next case asks for a grant of its own
            continue
        compile_ms: tuple[float, ...] = ()
        compile_error = None
        if request.baselines != "all":
            compile_error = f"not timed (--baselines {request.baselines})"
        elif compile_hit is not None and compile_hit.graph == graph:
            compile_ms = compile_hit.times_ms
        elif compile_spent > COMPILE_BUDGET_S:
            compile_error = f"torch.compile budget of {COMPILE_BUDGET_S:g} s spent"
        else:
            started = time.monotonic()
            try:
                compiled = fns.compiled()
                with torch.no_grad():
                    if fns.ahead(case):  # compiled while the worker ran: a call, in the window
                        _caller(compiled)(inputs_for(0))
                    else:
                        # compiled for this case's shapes first, the lock given back: the
                        # compile is CPU work (seconds) the other jobs need not be frozen for
                        window.give()
                        _caller(compiled)(inputs_for(0))
                        alone = window.take()
                    loop = time_loop(_caller(compiled), inputs_for, reset=reset,
                                     budget_ms=BASELINE_BUDGET_MS, keep=False, graph=graph)
                if not alone:
                    compile_error = SHARED
                elif loop.graph == graph:
                    compile_ms = tuple(round(t, 6) for t in loop.times_ms)
                else:  # never a plain time beside a graph replay's
                    compile_error = f"not capturable as a CUDA graph: {loop.graph_error}"
            except Exception as exc:  # inductor may not handle a reference: recorded
                compile_error = P.cut(f"{type(exc).__name__}: {exc}", 300)
            compile_spent += time.monotonic() - started
        overhead_ms = noop.wall_ms / max(1, len(noop.times_ms))  # the loop with no work in it
        out.append(P.Baseline(
            case_id, eager_ms, compile_ms, compile_error, round(overhead_ms, 6), source=source,
            graph=eager_graph,
            eager_cached_at=eager_hit.measured_at if eager_hit and eager_ms else None,
            compile_cached_at=compile_hit.measured_at
            if compile_hit and compile_ms and compile_hit.graph == graph else None))
        torch.cuda.empty_cache()
    return tuple(out)


def baseline_function(reference: ModuleType) -> tuple[Any, str]:
    """What PyTorch eager and torch.compile are timed on: the task's `baseline` (idiomatic
    PyTorch in the inputs' own dtype) where the reference computes in float64 for accuracy —
    timing a float64 GEMM would invent a speedup — else the reference itself."""
    fn = getattr(reference, "baseline", None)
    return (fn, "baseline") if callable(fn) else (reference.reference, "reference")


def _allow_recompiles() -> None:
    """Each timed case (shape × dtype) is its own specialization: past dynamo's default of 8
    recompiles it would fall back to eager without a word, and the `torch.compile` figure
    would be eager's (seen on an H100: max_pool2d's ninth case)."""
    import torch._dynamo

    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, max(64, getattr(torch._dynamo.config, name)))


def _caller(fn: Any) -> Any:
    return lambda inputs: fn(*inputs)
