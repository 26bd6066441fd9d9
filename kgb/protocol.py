"""Every message that crosses a process boundary, and the names of the files that carry them.

Host → worker: `JobSpec` (job.json, read-only in the sandbox). Worker → host: `WorkerResult`
(out/result.json). Host → judge: `JudgeRequest` (one JSON line on the judge's stdin). Judge →
host: `JudgeResult` (judge.json). Sandbox → host: `ExecRecord` (exec.json). Host → disk:
`VerdictRecord` (verdict.json, the journal entry that `kgb report --regrade` reads back).

Neutral zone: the untrusted worker imports this module too, so it uses the standard library
only. The trusted side parses everything the worker wrote as hostile input (`parse`): an unknown
key, a wrong type, a missing field, a file over its cap or cut short raises `ProtocolError` with
a one-line reason — the caller turns that into a verdict, never into an exception or a pass.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import math
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from kgb.jsonfiles import Bounds, Refused, loads_json, read_capped

# ------------------------------------------------------------------ files of a job folder
JOB_FILE = "job.json"  # JobSpec, written by the host before the worker starts
TASK_INPUTS_FILE = "task_inputs.py"  # the copy of the task's inputs.py the worker loads
OUT_DIR = "out"  # the worker's only writable folder
RESULT_FILE = "result.json"  # WorkerResult, in OUT_DIR
JUDGE_FILE = "judge.json"  # JudgeResult
EXEC_FILE = "exec.json"  # ExecRecord
PHASES_FILE = "phases.json"  # HostPhases: where the host's time went (kgb.metrics.overhead)
PLACEMENT_FILE = "placement.json"  # Placement: the Ray node and slot that ran the job
AGAIN_FILE = "again.txt"  # host: why the job ran again alone (kgb.runner.schedule), one line
# host: the job's judge compiled the reference beside its worker (kgb.runner.execute), so a
# job out of GPU memory there runs again without it (kgb.runner.schedule)
AHEAD_FILE = "compiled_ahead.txt"
JUDGE_KIND_FILE = "judge_kind.txt"  # the judge's: an ErrorKind naming why it failed (gpu_memory)
VERDICT_FILE = "verdict.json"  # VerdictRecord; written last: its presence marks the job done
STDOUT_LOG, STDERR_LOG, JUDGE_LOG = "stdout.log", "stderr.log", "judge.log"
TRACEBACK_FILE = "traceback.txt"  # the candidate's frames of the first error, in OUT_DIR
OUTPUT_KEY = "out{}"  # safetensors key of the i-th returned tensor
PLAIN_TENSOR = "torch.Tensor"  # the only output type kgb accepts (exactly; no subclass)

# The CPU interpreter's repairs the worker reports applying (kgb.worker.interpreter_fixes).
BF16_DOT_FIX = "bf16-dot-upcast"
TF32_DOT_FIX = "tf32-dot-operands"
BF16_ROUNDING_FIX = "bf16-round-to-nearest"
FLOAT_ARGS_FIX = "float-args-fp32"
BF16_ARITHMETIC_FIX = "bf16-arithmetic-fp32"
LIBDEVICE_FIX = "libdevice-via-torch"
BOOL_OPS_FIX = "bool-ops-elementwise"
LOOP_VARS_FIX = "loop-vars-tensors"
GDC_FIX = "gdc-no-op"
FP8_CAST_FIX = "fp8-casts-via-torch"
LIMITATIONS_NAMED = "limitations-named"

RESULT_MAX_BYTES = 16 << 20
JUDGE_MAX_BYTES = 64 << 20
TEXT_MAX_CHARS = 4000  # any message the worker writes is cut to this on the trusted side


# The only names the worker may leave in its output folder: anything else it writes (a 48 MiB
# junk.bin, a planted module, a link) is never copied out of the sandbox, and is deleted where
# the backend writes in place (kgb.runner.execute).
OUTPUT_NAMES = (r"^(result\.json|progress\.json|traceback\.txt"
                r"|case_\d{3}_call_\d+\.safetensors|timed_\d{3}_\d{3}\.safetensors)$")
PROGRESS_FILE = "progress.json"  # Progress, rewritten as the worker goes (read after a timeout)


def output_file(case_index: int, call_index: int) -> str:
    """The one name under which a call's outputs may travel; the judge derives it from the
    indices of the plan, never from anything the worker wrote."""
    return f"case_{case_index:03d}_call_{call_index}.safetensors"


MISSING_OUTPUT = "the output file is missing"


def timed_file(case_index: int, rep: int) -> str:
    """The outputs of timed call `rep` (0-based) of a case, kept when the supervisor chose it."""
    return f"timed_{case_index:03d}_{rep:03d}.safetensors"


# ------------------------------------------------------------------ vocabularies
class CaseStatus(enum.StrEnum):
    """One vocabulary for a case (and a call) from the worker through the judge to the verdict."""

    RETURNED = "returned"  # worker: the call returned and its outputs were saved for judging
    RAISED = "raised"  # worker: the call raised
    VIOLATION = "violation"  # worker: a runtime rule saw something (see `rule`)
    PASSED = "passed"  # judge: the outputs are right
    FAILED = "failed"  # judge: the outputs are wrong
    NOT_CHECKABLE = "not_checkable"  # this device cannot judge it (CPU interpreter limits)
    NOT_RUN = "not_run"  # nobody got to it
    INFRA = "infra"  # kgb's fault (e.g. the workers' inputs differ): never the kernel's


class Verdict(enum.StrEnum):
    PASSED = "passed"
    REJECTED = "rejected"
    INCORRECT = "incorrect"
    COMPILE_ERROR = "compile_error"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    MISSING = "missing"
    UNVERIFIED = "unverified"


class CallKind(enum.StrEnum):
    """The calls of one case (layer 2 anti-caching and layer 3 consistency, design.md)."""

    PRIMARY = "primary"  # the case's inputs
    FRESH = "fresh"  # other inputs of the same shape: an answer keyed by shape is wrong
    SAME_VALUES = "same_values"  # the primary's values in new storage: determinism, pointer keys
    NEAR_EQUAL = "near_equal"  # the primary's values with one element nudged: value-sampled keys
    RESEED = "reseed"  # Random tasks: the primary's inputs with another seed: must differ
    GHOST = "ghost"  # Triton launches turned into no-ops: a right answer means no Triton work


class ErrorKind(enum.StrEnum):
    COMPILE = "compile"  # Triton refused the kernel (or would, as predicted on the CPU)
    CRASH = "crash"  # the worker or the candidate failed outside a case
    RUNTIME = "runtime"  # a call raised
    INTERPRETER = "interpreter"  # the CPU interpreter cannot do what the call needs (named)
    STORAGE = "storage"  # the outputs did not fit the output folder's cap: kgb's limit
    # The GPU's memory ran out (torch.OutOfMemoryError, CUDA's "out of memory"): with other
    # jobs on the GPU the job runs again alone (kgb.runner.schedule).
    GPU_MEMORY = "gpu_memory"


# ------------------------------------------------------------------ host → worker
@dataclass(frozen=True)
class Peaks:
    """A device's limits (kgb.bench.hw): datasheet or calibrated."""

    device: str
    source: str  # "datasheet: <part>" or "calibrated <date>"
    bandwidth_gbps: float  # DRAM bytes read + written per second / 1e9
    tflops: dict[str, float]  # dense peak per case dtype (float32: TF32 tensor cores)

    def flops_per_s(self, dtype: str) -> float | None:
        value = self.tflops.get(dtype)
        return value * 1e12 if value else None


@dataclass(frozen=True)
class CallSpec:
    kind: CallKind
    seed: int  # the seed make_inputs draws from
    perturb_seed: int | None = None  # NEAR_EQUAL: which element is nudged
    seed_value: int | None = None  # RESEED: the value put in the task's seed argument


# How a case's strided inputs are stored (kgb.tasks.casegen gives inputs these layouts).
CONTIGUOUS = "contiguous"
PADDED = "padded"  # rows longer than the tensor's last dimension: the padding holds NaN
TRANSPOSED = "transposed"  # the last two dimensions stored in column-major order
LAYOUTS = (CONTIGUOUS, PADDED, TRANSPOSED)


@dataclass(frozen=True)
class CaseSpec:
    id: str
    shape: str  # the task's name for the shape, e.g. "llm-hidden-odd"
    dims: dict[str, int]
    dtype: str
    mode: str
    layout: str
    calls: tuple[CallSpec, ...]
    skip: str | None = None  # why this device cannot run the case; None: run it
    flops: float = 0.0  # the task's cost model at these dims (a lower bound of the work)
    bytes: float = 0.0

    @property
    def seed(self) -> int:
        return self.calls[0].seed

    @property
    def timeable(self) -> bool:
        """Timed on a GPU when its primary call returns tensors: standard inputs in the
        contiguous layout (outliers and strided layouts are checked, not timed)."""
        return self.skip is None and self.mode == "standard" and self.layout == CONTIGUOUS

    @property
    def profiled_call(self) -> int:
        """The call run under the profiler for the kernel names seen while checking (D306):
        the first repeat of the primary's shape where the case has one. The primary call
        compiles and autotunes for a new shape, and an autotuner benchmarks every config
        thousands of times: Kineto took ~150 s to parse one shape's trace of fla's 30-config
        autotune on an H100 (session 21): a job whose autotuning takes 5 minutes outside kgb
        had not finished after 9."""
        repeats = (CallKind.FRESH, CallKind.SAME_VALUES, CallKind.NEAR_EQUAL)
        return next((i for i, c in enumerate(self.calls) if c.kind in repeats), 0)


@dataclass(frozen=True)
class JobSpec:
    task_id: str
    inputs_path: str  # the job folder's copy of the task's inputs.py
    layout_inputs: tuple[int, ...]
    seed_input: int | None
    kernel_path: str
    entry: str
    device: str  # inside the sandbox: "cpu" or "cuda:0"
    interpreter: bool
    out_dir: str
    cases: tuple[CaseSpec, ...]
    timing: bool = True  # on a GPU: time the standard cases after checking them
    cuda_graph: bool = False  # --cuda-graph: each timed call a CUDA-graph replay
    # The task's in-place inputs (kgb.tasks.model.Task.inplace): after each call their memory
    # is the call's outputs, and they are no input mutation (D201) or aliasing (D202).
    inplace: tuple[int, ...] = ()


# ------------------------------------------------------------------ worker → host
@dataclass(frozen=True)
class OutputMeta:
    dtype: str
    shape: tuple[int, ...]
    device: str


# A primary call's outputs are fingerprinted when it returns and again this much later (D305).
LATE_WRITE_WAIT_S = 0.05
# Kept free in a job's output folder for the worker's own files (result.json, progress, a
# traceback): the worker refuses (ENOSPC) a save of outputs that would leave less, and the
# host's "had room" check counts it (kgb/worker/outputs.py ensure_room, kgb/runner/speed.py).
RESULT_RESERVE_BYTES = 4 << 20
OUTPUT_HEADER_BYTES = 64 << 10  # a safetensors header, generously

@dataclass(frozen=True)
class CallRecord:
    """What happened in one call, and the evidence the worker saw. The worker never decides a
    rule: the trusted side reads this evidence (kgb.runner.verdict) and backs it with outputs
    the candidate could not forge."""

    index: int
    kind: CallKind
    status: CaseStatus  # RETURNED (outputs saved, or not saveable: see output_types) or RAISED
    error: str | None = None
    error_kind: ErrorKind | None = None
    input_fingerprint: str | None = None
    output_types: tuple[str, ...] = ()  # exact type of each returned item
    outputs: tuple[OutputMeta, ...] = ()  # the saved outputs (all items plain tensors)
    mutated_inputs: tuple[int, ...] = ()  # inputs whose bytes changed during the call
    aliases: tuple[tuple[int, int], ...] = ()  # (output, input) pairs sharing storage
    launches: int = 0  # launches of the file's own Triton kernels
    torch_ops: tuple[str, ...] = ()  # aten ops outside allocation/view/copy/fill
    copy_ops: tuple[str, ...] = ()  # glue ops that copied tensor data (judged by the task's glue)
    host_arguments: tuple[str, ...] = ()  # launch arguments no compiled kernel takes (threat 34)
    kernel_body_ops: tuple[str, ...] = ()  # aten ops run inside interpreted kernel bodies
    kernels: tuple[str, ...] = ()  # GPU kernels the profiler saw (CaseSpec.profiled_call, GPU)
    late_write: bool = False  # the outputs changed after the call returned and synchronized
    wall_s: float | None = None


@dataclass(frozen=True)
class CaseRecord:
    id: str
    calls: tuple[CallRecord, ...] = ()
    skipped: str | None = None  # the worker did not attempt it (the plan said so)


@dataclass(frozen=True)
class TimedCase:
    """The worker's timing loop of one case (kgb.bench.timer): evidence, backed on the trusted
    side by the supervisor's window, the re-checked outputs it chose and the hardware's limits."""

    case: str
    times_ms: tuple[float, ...]  # CUDA events, one per timed call
    warmup: int
    fingerprints: tuple[str, ...]  # of every timed call's outputs, committed to the supervisor
    kept: tuple[int, ...]  # the calls whose outputs were saved (the supervisor's choice)
    profiler_ms: float | None = None  # device time of one profiled call, all streams
    kernels: tuple[str, ...] = ()  # kernel names the profiler saw while timing
    streams: int = 0
    unsaved: str | None = None  # kept outputs that did not fit the output folder: why
    graph: bool = False  # timed as CUDA-graph replays (--cuda-graph)
    graph_error: str | None = None  # why --cuda-graph fell back to plain calls for this case


@dataclass(frozen=True)
class WorkerResult:
    stage: str  # how far the worker got: start, import, cases, timing, done
    cases: tuple[CaseRecord, ...] = ()
    error: str | None = None
    error_kind: ErrorKind | None = None
    autotune_first_config: bool = False
    interpreter_fixes: tuple[str, ...] = ()
    timed: tuple[TimedCase, ...] = ()
    compile_s: float = 0.0  # spent compiling and autotuning (its own budget)
    # Seconds in the threat-13 re-reads (kgb/worker/main.py, settle): syncs, fingerprints and
    # any sleep for what was left of LATE_WRITE_WAIT_S. A performance record only (None: a
    # worker older than this field).
    late_check_s: float | None = None


@dataclass(frozen=True)
class Progress:
    """How far the worker got and where its time went (evidence: only ever used to say which
    budget a stopped job was spending)."""

    stage: str
    cases_done: int
    compile_s: float
    elapsed_s: float


# ------------------------------------------------------------------ host → judge → host
@dataclass(frozen=True)
class CachedBaseline:
    """One baseline figure from the host's store: `kind` is "eager" or "compile"."""

    case: str
    kind: str
    times_ms: tuple[float, ...]
    graph: bool
    measured_at: str  # UTC, ISO 8601


@dataclass(frozen=True)
class CachedLoop:
    """The empty timing loop's cost per call for a case, as an earlier job of the same run
    measured it in an exclusive window (kgb.runner.run_memo)."""

    case: str
    overhead_ms: float


@dataclass(frozen=True)
class JudgeRequest:
    job_dir: str
    task_dir: str
    device: str  # on the trusted side: "cpu" or "cuda:N"
    cases: tuple[CaseSpec, ...]
    layout_inputs: tuple[int, ...]
    seed_input: int | None
    claims: tuple[CaseRecord, ...]  # the worker's records, already parsed by the host
    commits: tuple[Commit, ...] = ()  # the supervisor's: which timed outputs were kept
    timed_cases: tuple[str, ...] = ()  # cases the worker timed: baselines are timed for these
    baselines: str = "all"  # "all" (eager and torch.compile), "eager" or "none" (--baselines)
    graph_cases: tuple[str, ...] = ()  # cases the worker timed as CUDA graphs: so are baselines
    # The job's output-folder cap (--limit output): no honest output file is larger, and a
    # fixed cap below it turned a 6.4 GB softmax output into `incorrect`.
    output_cap: int = 4 << 30
    # Baseline figures the host found in its trusted store (kgb.runner.baseline_cache): the
    # judge takes these instead of timing them again.
    cached: tuple[CachedBaseline, ...] = ()
    # The empty loop's cost an earlier job of this run measured for these cases: with every
    # baseline of a case given, the judge needs no window of the GPU's lock for it.
    loops: tuple[CachedLoop, ...] = ()
    # Where the outputs are read (issue 24, outputs handed over in place): the sandbox's own
    # output folder through /proc/PID/root, its (st_dev, st_ino) checked on every open; None:
    # the job's out/ folder, as the sandbox copied it out.
    outputs_dir: str | None = None
    outputs_ident: tuple[int, ...] = ()
    # Sent while the job's worker still runs (issue 24, the reference's compile off the job's
    # path): torch.compile of the reference for `timed_cases`' shapes in the judge that will
    # then judge the job; nothing timed, judged or written.
    ahead: bool = False


def outputs_folder(request: JudgeRequest) -> tuple[Path, tuple[int, ...]]:
    """The folder a judge reads the candidate's outputs from, and the identity it must have
    (empty: any; the job's own out/ folder)."""
    if request.outputs_dir:
        return Path(request.outputs_dir), request.outputs_ident
    return Path(request.job_dir) / OUT_DIR, ()


@dataclass(frozen=True)
class CallJudgement:
    index: int
    kind: CallKind
    status: CaseStatus  # PASSED, FAILED, NOT_RUN or INFRA
    max_abs: float | None = None
    rel_l2: float | None = None
    message: str = ""
    rule: str | None = None  # a layer-3 rule the comparison found (ghost, determinism, reseed)


@dataclass(frozen=True)
class CaseJudgement:
    id: str
    calls: tuple[CallJudgement, ...] = ()


@dataclass(frozen=True)
class TimedCheck:
    """A kept timed output, re-checked against its own reference (and its commitment)."""

    case: str
    rep: int
    status: CaseStatus  # PASSED, FAILED or NOT_RUN
    message: str = ""
    rule: str | None = None


@dataclass(frozen=True)
class Baseline:
    """PyTorch's own time for a timed case, measured by the same loop in the trusted judge."""

    case: str
    eager_ms: tuple[float, ...] = ()
    compile_ms: tuple[float, ...] = ()
    compile_error: str | None = None
    overhead_ms: float | None = None  # the loop's own cost per call (a no-op in the call's place)
    error: str | None = None
    source: str = "reference"  # "baseline" (the task's PyTorch in the input dtype) or "reference"
    graph: bool = False  # timed as CUDA-graph replays, like the kernel's case
    eager_cached_at: str | None = None  # from the baseline store: when it was measured (UTC)
    compile_cached_at: str | None = None
    overhead_cached: bool = False  # overhead_ms as an earlier job of the run measured it


@dataclass(frozen=True)
class Phase:
    """Seconds one step of a job took, on the clock of whoever ran it (kgb.metrics.overhead)."""

    name: str
    seconds: float


@dataclass(frozen=True)
class JudgeResult:
    cases: tuple[CaseJudgement, ...]
    timed_checks: tuple[TimedCheck, ...] = ()
    baselines: tuple[Baseline, ...] = ()
    phases: tuple[Phase, ...] = ()  # load, cases, recheck, baselines (the judge's own clock)


# ------------------------------------------------------------------ sandbox → host
@dataclass(frozen=True)
class Mark:
    label: str
    t: float  # seconds since the worker started, on the supervisor's clock
    # the worker's main thread's time spent runnable but waiting for a CPU so far (seconds,
    # the supervisor's reading of /proc/PID/schedstat at the mark; None where unreadable)
    waited: float | None = None


@dataclass(frozen=True)
class Commit:
    case: str
    fingerprints: tuple[str, ...]
    keep: tuple[int, ...]  # chosen by the supervisor after the fingerprints arrived
    t: float
    # The bytes of one timed call's outputs as the worker told the supervisor, which keeps
    # fewer of very large ones; the judge holds the claim against the saved files (D309).
    bytes: int = 0


@dataclass(frozen=True)
class LockWindow:
    """One grant of a shared GPU's timing lock, on the supervisor's clock (seconds since the
    worker started, as marks): the timed marks of a job on a shared GPU count only inside one
    that is exclusive and was not revoked (kgb.runner.speed, kgb/runner/gpu_share.py)."""

    start: float
    end: float | None  # None: still open when the supervisor reported (never seen closed)
    exclusive: bool  # every other job on the GPU frozen and the GPU drained at the grant
    revoked: bool = False  # taken back by the host at the holder's bound


@dataclass(frozen=True)
class ExecRecord:
    """What the sandbox saw of the worker (exec.json): nothing the worker can write."""

    backend: str
    returncode: int | None
    timed_out: bool
    wall_s: float
    truncated: bool
    notes: tuple[str, ...] = ()
    stderr_tail: str = ""  # the worker's last stderr line, for a death message
    channel: bool = False  # the supervisor's clock and notary were there
    marks: tuple[Mark, ...] = ()
    commits: tuple[Commit, ...] = ()
    compile_s: float | None = None  # compile/autotune time the supervisor credited (its clock)
    # The worker's life on the supervisor's clock; wall_s minus this is the sandbox's own start
    # and teardown.
    worker_s: float | None = None
    # The output folder as the host found it (bytes of the files it kept), its cap, and the
    # free space of the disk under it: a worker that says a timed output did not fit is
    # believed only if it could not have.
    output_used: int | None = None
    output_cap: int | None = None
    output_free: int | None = None
    # The worker's start-up (Python, torch, Triton, the device) until its candidate's import,
    # on the supervisor's clock: drawn from the compile budget, never from the run time.
    startup_s: float | None = None
    # After start-up: how long the worker's main thread waited for a CPU (the machine's other
    # load), also credited from the compile budget (kgb/sandbox/_supervisor.py).
    waited_s: float | None = None
    # The GPU was shared with other jobs (--jobs N with timing on): the timing lock's granted
    # windows, and the seconds other jobs' windows kept this one frozen (not its time).
    shared_gpu: bool = False
    windows: tuple[LockWindow, ...] = ()
    frozen_s: float | None = None
    # Outputs handed over in place (issue 24): bytes the judge read inside the sandbox's
    # output folder instead of a copy in out/ (None: everything was copied out)
    held_bytes: int | None = None


@dataclass(frozen=True)
class HostPhases:
    """Where the host's time went for one job (phases.json, written before verdict.json): a
    performance record, never evidence for a verdict."""

    static_s: float  # layer 1 and the code metrics
    sandbox_s: float  # the sandbox's run, start to teardown, as the host waited for it
    judge_s: float  # the judge's answer as the host waited for it (queueing included)
    grade_s: float
    total_s: float  # the whole job, folder creation to verdict, less its wait for the slot
    # A warm start: the job was prepared (layer 1, sandbox started, worker importing) while
    # its slot's previous job ran, and waited this long for the slot (None: started cold).
    waited_for_slot_s: float | None = None


# ------------------------------------------------------------------ host: plan, verdict, facts
@dataclass(frozen=True)
class Finding:
    """One reason to reject a kernel, with where it was seen."""

    rule: str
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None

    def location(self) -> str:
        if self.file is None:
            return ""
        parts = [self.file] + [str(p) for p in (self.line, self.col) if p is not None]
        return ":".join(parts)

    def to_dict(self) -> dict:
        return to_json(self)


@dataclass(frozen=True)
class CodeMetrics:
    """Maintainability of the kernel file (kgb.metrics.code, radon), measured by the host."""

    mi: float  # maintainability index with comments counted, 0..100 (higher: easier)
    cc_max: int  # cyclomatic complexity of the most complex function (1: straight-line)
    cc_mean: float  # mean over functions and methods
    functions: int  # functions and methods measured


@dataclass(frozen=True)
class PlanRecord:
    """What the host decided before running anything (plan.json): enough, with the files the
    job produced, to re-grade the job without the suite or the submission."""

    task_id: str
    category: str
    kernel_file: str | None  # None: the submission has no kernel for this task
    slot: str  # the device the job ran on, as the host names it ("cpu", "cuda:1")
    timeout_s: float  # the run-time budget
    cases: tuple[CaseSpec, ...]
    compile_budget_s: float = 0.0  # compiling and autotuning, on top of the run-time budget
    findings: tuple[Finding, ...] = ()  # layer 1
    interpreter_features: tuple[str, ...] = ()  # what the CPU interpreter cannot judge
    floor_peaks: Peaks | None = None  # for the roofline floor (the highest credible peaks)
    efficiency_peaks: Peaks | None = None  # for fraction-of-peak figures
    timing: bool = True  # False: --timing off (GPU runs check correctness only)
    cuda_graph: bool = False  # --cuda-graph: timed calls are CUDA-graph replays
    code: CodeMetrics | None = None  # of the kernel file; None: no kernel, or unparsable
    glue: str = "copies"  # the task's glue policy: "views" makes a host copy compute (D206)
    # The task's shapes this device did not run (gpu_only on the CPU), `name (dim=size, ...)`:
    # a `passed` verdict names them (issue 28).
    unrun_shapes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CaseOutcome:
    id: str
    status: CaseStatus
    max_abs: float | None = None
    rel_l2: float | None = None
    message: str = ""
    rule: str | None = None


@dataclass(frozen=True)
class VerdictRecord:
    verdict: Verdict
    rule: str | None = None
    layer: int | None = None
    message: str = ""
    location: str = ""
    cases: tuple[CaseOutcome, ...] = ()
    # What failed, where it decides what the run does next: gpu_memory (the candidate's or
    # the judge's) runs the job again alone when other jobs shared its GPU. Host-decided.
    failure: ErrorKind | None = None

    def coverage(self) -> dict[str, int]:
        counts = {"cases": len(self.cases), "checked": 0, "passed": 0, "not_checkable": 0}
        for c in self.cases:
            counts["checked"] += c.status in (CaseStatus.PASSED, CaseStatus.FAILED)
            counts["passed"] += c.status == CaseStatus.PASSED
            counts["not_checkable"] += c.status == CaseStatus.NOT_CHECKABLE
        return counts


@dataclass(frozen=True)
class CaseTiming:
    """A timed case's figures (kgb.runner.speed), for the report and the metrics."""

    case: str
    shape: str
    dtype: str
    reps: int
    median_ms: float
    iqr_ms: float
    cv: float
    min_ms: float
    profiler_ms: float | None = None
    eager_ms: float | None = None
    compile_ms: float | None = None
    compile_error: str | None = None
    flops: float = 0.0
    bytes: float = 0.0
    floor_ms: float | None = None
    tflops: float | None = None
    gbps: float | None = None
    flops_fraction: float | None = None
    bandwidth_fraction: float | None = None
    graph: bool = False  # timed as CUDA-graph replays (--cuda-graph)
    # D304's evidence, so how near an honest kernel came to it can be read: the supervisor's
    # clock over the timed calls, and what the loop with no work costs for as many calls
    window_ms: float | None = None
    loop_ms: float | None = None
    # the baselines came from kgb's store (kgb.runner.baseline_cache), measured then (UTC)
    eager_cached_at: str | None = None
    compile_cached_at: str | None = None


@dataclass(frozen=True)
class Conditions:
    """The GPU's state around a job, read by the host through NVML (kgb.bench.conditions)."""

    sm_clock_mhz: tuple[int, int] | None = None  # before, after
    mem_clock_mhz: tuple[int, int] | None = None
    temperature_c: tuple[int, int] | None = None
    power_w: tuple[float, float] | None = None
    throttle_reasons: tuple[str, ...] = ()  # active after the job (idle and boost excluded)
    throttled: bool = False
    error: str | None = None
    # other processes on the GPU while the job ran (kgb.bench.neighbours): "pid name"
    neighbours: tuple[str, ...] = ()
    unattributed: tuple[int, ...] = ()  # pids NVML listed that the host cannot see
    neighbours_error: str | None = None  # why they could not be watched


@dataclass(frozen=True)
class ShardFacts:
    """One shard of a task whose cases ran as several jobs (kgb.runner.shards): which cases
    ran in which folder, on which device; never evidence for a verdict."""

    index: int  # 1-based, in plan order
    cases: tuple[str, ...]
    device: str
    log_dir: str
    worker_wall_s: float | None = None


@dataclass(frozen=True)
class JobFacts:
    """What the report shows beside the verdict; derived from the job's files only."""

    log_dir: str
    device: str
    worker_wall_s: float | None = None
    interpreter_limits: tuple[str, ...] = ()
    interpreter_fixes: tuple[str, ...] = ()
    note: str | None = None
    time_ms: float | None = None  # the largest timed case's median
    timed_case: str | None = None
    speedup_eager: float | None = None  # geomean over shapes of eager time / kernel time
    speedup_compile: float | None = None
    timings: tuple[CaseTiming, ...] = ()
    speed_unchecked: tuple[str, ...] = ()  # timing checks that could not run, with why
    compile_s: float = 0.0
    conditions: Conditions | None = None
    traceback: str | None = None  # the kernel file's frames of the error (crashed/compile_error)
    placement: Placement | None = None  # where a Ray run ran the job (None: this machine)
    shards: tuple[ShardFacts, ...] = ()  # the task's cases ran as these jobs (none: one job)


@dataclass(frozen=True)
class Retry:
    """One attempt of a job that ended without a result (its actor or node was lost)."""

    node: str  # the Ray node id (hex) the attempt ran on
    slot: str  # the actor's device on that node ("cpu", "cuda:N")
    reason: str  # why: the Ray error's one-line message


@dataclass(frozen=True)
class Placement:
    """placement.json (host, Ray runs): the node and slot whose result the host graded, and the
    attempts before it that were lost; never evidence for a verdict."""

    node: str
    node_ip: str
    slot: str
    actor: str  # the actor's name, e.g. "kgb-slot-3"
    retries: tuple[Retry, ...] = ()


@dataclass(frozen=True)
class JobRecord:
    """verdict.json: the journal entry of a finished job."""

    verdict: VerdictRecord
    facts: JobFacts


# ------------------------------------------------------------------ (de)serialisation
class ProtocolError(ValueError):
    """A message is not what the protocol says: the one-line reason is the message."""


# Every message kgb writes nests under 10 levels and holds no integer beyond 63 bits and no
# non-finite float (to_json writes those as null or "inf"): anything past that is hostile.
MESSAGE_BOUNDS = Bounds(max_depth=32)
MESSAGE_MAX_BYTES = 64 << 20


T = TypeVar("T")


def to_json(message: Any) -> Any:
    """A dataclass (or a value inside one) as plain JSON data."""
    if dataclasses.is_dataclass(message) and not isinstance(message, type):
        return {f.name: to_json(getattr(message, f.name)) for f in dataclasses.fields(message)}
    if isinstance(message, enum.Enum):
        return message.value
    if isinstance(message, (tuple, list)):
        return [to_json(v) for v in message]
    if isinstance(message, dict):
        return {str(k): to_json(v) for k, v in message.items()}
    if isinstance(message, float) and not math.isfinite(message):
        return None if math.isnan(message) else ("inf" if message > 0 else "-inf")
    return message


def dumps(message: Any) -> str:
    return json.dumps(to_json(message))


def parse(cls: type[T], data: Any, where: str = "") -> T:
    """`data` (parsed JSON) as a `cls`, refusing anything the protocol does not allow."""
    return _coerce(data, cls, where or cls.__name__)


def loads(cls: type[T], text: str | bytes, where: str = "", cap: int = MESSAGE_MAX_BYTES) -> T:
    """A message from its JSON text, through the bounded reader (kgb.jsonfiles): nested
    deeper than MESSAGE_BOUNDS allows, an integer beyond 2**64, NaN, Infinity or a float that
    overflows — none of which kgb's own writers produce (to_json) — is a ProtocolError."""
    name = where or cls.__name__
    try:
        data = loads_json(text, dataclasses.replace(MESSAGE_BOUNDS, max_bytes=cap), name)
    except Refused as exc:
        raise ProtocolError(exc.message) from None
    return parse(cls, data, name)


def read(cls: type[T], path: Path, cap: int) -> T:
    """A message from a file, read at most `cap` bytes deep (a huge file is refused unread;
    a FIFO, device or folder in its place is refused, never waited on)."""
    try:
        raw = read_capped(path, cap, path.name)
    except Refused as exc:
        raise ProtocolError(f"{path.name} is missing" if exc.reason == "does not exist"
                            else exc.message) from None
    return loads(cls, raw, path.name, cap)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """A message class's resolved field types, once per class: `get_type_hints` evaluates every
    string annotation anew, which made reading a run's files quadratic in practice (seconds
    for a suite's plans)."""
    return typing.get_type_hints(cls)


@functools.cache
def _fields(cls: type) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(cls)}


@functools.cache
def _shape(hint: Any) -> tuple[Any, tuple[Any, ...], bool, bool]:
    """(origin, args, is a message dataclass, is an enum) of a field type, once per type:
    asking typing and dataclasses anew for every value was most of a job's grading time."""
    is_type = isinstance(hint, type)
    return (typing.get_origin(hint), typing.get_args(hint),
            is_type and dataclasses.is_dataclass(hint), is_type and issubclass(hint, enum.Enum))


def _coerce(value: Any, hint: Any, where: str) -> Any:
    if hint is Any:
        return value
    origin, args, is_message, is_enum = _shape(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _coerce(value, arg, where)
            except ProtocolError as exc:
                errors.append(str(exc))
        raise ProtocolError(errors[0] if errors else f"{where}: must not be null")
    if is_message:
        if not isinstance(value, dict):
            raise ProtocolError(f"{where}: expected an object, got {_kind(value)}")
        fields = _fields(hint)
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise ProtocolError(f"{where}: unknown key {unknown[0][:60]!r}")
        hints = _hints(hint)
        kwargs: dict[str, Any] = {}
        for name, f in fields.items():
            if name in value:
                kwargs[name] = _coerce(value[name], hints[name], f"{where}.{name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ProtocolError(f"{where}: missing key {name!r}")
        return hint(**kwargs)
    if is_enum:
        try:
            return hint(value)
        except ValueError:
            raise ProtocolError(f"{where}: {str(value)[:40]!r} is not one of "
                                f"{', '.join(m.value for m in hint)}") from None
    if origin is tuple:
        if not isinstance(value, list):
            raise ProtocolError(f"{where}: expected a list, got {_kind(value)}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise ProtocolError(f"{where}: expected {len(args)} items, got {len(value)}")
        return tuple(_coerce(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
    if origin is dict:
        if not isinstance(value, dict):
            raise ProtocolError(f"{where}: expected an object, got {_kind(value)}")
        key_hint, item = args
        return {_coerce(k, key_hint, where): _coerce(v, item, f"{where}.{k}")
                for k, v in value.items()}
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ProtocolError(f"{where}: expected a number, got {_kind(value)}")
        if isinstance(value, str):
            if value not in ("inf", "-inf"):
                raise ProtocolError(f"{where}: expected a number, got a string")
            return math.inf if value == "inf" else -math.inf
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProtocolError(f"{where}: expected an integer, got {_kind(value)}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise ProtocolError(f"{where}: expected true or false, got {_kind(value)}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ProtocolError(f"{where}: expected a string, got {_kind(value)}")
        return value
    raise TypeError(f"protocol: no rule for {hint!r} at {where}")  # a kgb bug, not input


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def cut(text: str | None, limit: int = TEXT_MAX_CHARS) -> str:
    """Untrusted text shortened for messages: long names and errors never flood a report."""
    if text is None:
        return ""
    return text if len(text) <= limit else text[: limit - 14] + " ...[cut]"

