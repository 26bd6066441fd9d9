"""The trusted judge: `python -m kgb.judge CACHE_DIR DEVICE [compile]`, a long-lived process per
device slot, outside any sandbox, that only ever imports the suite's own task files.

It reads one `JudgeRequest` per line on stdin (from kgb.runner.judge_pool, trusted) and answers
one line (`ok`, or `error` with the traceback in the job's judge.log). One process for many jobs
saves a torch import and a CUDA start per job; the pool restarts it after any error, so a sticky
CUDA error never judges twice. On a GPU a canary runs after each job (`ok retire`: the judgement
stands, the judge does not serve again), and the pool retires a judge after RECYCLE_JOBS jobs."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path


def serve(cache_dir: Path, device: str, compiles: bool = False) -> int:
    import torch

    if compiles:  # it will torch.compile references: dynamo and inductor's imports (seconds)
        # now, while the host plans and the worker starts, not in a job's compile ahead
        try:
            import torch._dynamo
            import torch._inductor.compile_fx
        except Exception:  # the compile meets the same failure and records it
            pass

    from kgb import protocol as P
    from kgb.errors import gpu_memory_exhausted
    from kgb.judge import gpu_lock
    from kgb.judge.judge import judge_job

    if device == "cpu":
        # A CPU run's cases are the small shapes: one thread judges them as fast, and beside a
        # busy worker (the interpreter fills a core) torch's second thread only spins. Measured
        # on 2 loaded cores, one relu job's judgement: 2.3 s / 2.3 s CPU with one thread, 16.6 s
        # / 5.5 s CPU with two. Results do not depend on it (inputs are drawn serially).
        torch.set_num_threads(1)

    # The answer channel gets its own descriptor; anything else printed to stdout (a reference,
    # torch, a C library) goes to stderr and can never pass for an answer.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    gpu_lock.connect(answers, sys.stdin)  # timing-lock requests ride the same two pipes
    steady: int | None = None
    for line in sys.stdin:
        job_dir: Path | None = None
        try:
            request = P.loads(P.JudgeRequest, line, "judge request")
            job_dir = Path(request.job_dir)
            judge_job(request, cache_dir)
            answer = "ok"
        except BaseException as exc:
            if job_dir is not None:
                (job_dir / P.JUDGE_LOG).write_text(traceback.format_exc()[-20000:])
                if gpu_memory_exhausted(exc):  # named by type, never read back from the log
                    (job_dir / P.JUDGE_KIND_FILE).write_text(P.ErrorKind.GPU_MEMORY.value)
            answer = "error"
        if device.startswith("cuda"):
            torch.cuda.empty_cache()  # the next candidate shares this GPU
            if steady is None:  # what the judge keeps between jobs, after its first
                steady = held_memory(device)
            if answer == "ok" and not canary_holds(device, steady):
                answer = "ok retire"  # this judgement stands; the next job gets a fresh judge
        print(answer, file=answers, flush=True)
        if answer != "ok":
            return 1
    return 0


CANARY_N = 256


def canary_holds(device: str, steady: int = 0) -> bool:
    """After each job on a GPU: the judge's memory is back to what it holds between jobs
    (`steady`, measured after its first job: tensors of a judgement freed) and a known
    computation gives its known answer. A GPU left in a wrong state (a sticky fault, leaked
    memory) retires this judge rather than time or judge the next job."""
    import torch

    try:
        if held_memory(device) > steady:
            return False
        total = canary_sum(device)
        torch.cuda.empty_cache()
        return total == canary_expected() and held_memory(device) <= steady
    except Exception:  # any CUDA error here is a wrong state
        return False


def held_memory(device: str) -> int:
    """Bytes of live tensors on `device`, less cuBLAS's workspaces: torch allocates one per
    handle and stream the first time a matmul runs there and keeps it. The canary's own matmul
    made one in every judge whose first job had none (no GEMM in its reference), so 24 of 25
    judges of an H200 run retired after one job and every job paid a judge's start (run 24)."""
    import torch

    clear = getattr(torch._C, "_cuda_clearCublasWorkspaces", None)
    if clear is not None:
        clear()
    return torch.cuda.memory_allocated(device)


def canary_sum(device: str) -> float:
    """A known computation on the GPU (a float64 GEMM of small integers: exact)."""
    import torch

    a = torch.arange(CANARY_N * CANARY_N, device=device, dtype=torch.float64)
    a = (a % 7).reshape(CANARY_N, CANARY_N)
    return float((a @ a).sum())


def canary_expected() -> float:
    """The canary's sum, computed on the CPU in float64 (exact: integers far below 2**53)."""
    import torch

    a = (torch.arange(CANARY_N * CANARY_N, dtype=torch.float64) % 7).reshape(CANARY_N, CANARY_N)
    return float((a @ a).sum())


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), sys.argv[2], sys.argv[3:] == ["compile"]))
