"""The trusted judge: `python -m kgb.judge CACHE_DIR DEVICE`, a long-lived process per device
slot, outside any sandbox, that only ever imports the suite's own task files.

It reads one `JudgeRequest` per line on stdin (from kgb.runner.judge_pool, trusted) and answers
one line (`ok`, or `error` with the traceback in the job's judge.log). One process for many jobs
saves a torch import and a CUDA start per job; the pool restarts it after any error, so a sticky
CUDA error never judges twice."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path


def serve(cache_dir: Path, device: str) -> int:
    import torch

    from kgb import protocol as P
    from kgb.judge.judge import judge_job

    # The answer channel gets its own descriptor; anything else printed to stdout (a reference,
    # torch, a C library) goes to stderr and can never pass for an answer.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        job_dir: Path | None = None
        try:
            request = P.loads(P.JudgeRequest, line, "judge request")
            job_dir = Path(request.job_dir)
            judge_job(request, cache_dir)
            answer = "ok"
        except BaseException:
            if job_dir is not None:
                (job_dir / P.JUDGE_LOG).write_text(traceback.format_exc()[-20000:])
            answer = "error"
        if device.startswith("cuda"):
            torch.cuda.empty_cache()  # the next candidate shares this GPU
        print(answer, file=answers, flush=True)
        if answer != "ok":
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), sys.argv[2]))
