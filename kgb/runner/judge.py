"""The trusted judge: `python -m kgb.runner.judge CACHE_DIR DEVICE`, a long-lived process per
device slot, outside any sandbox, that only ever imports the suite's own reference.py files.

It reads one job folder per line on stdin and answers one line on stdout (`ok`, or `error`
with the traceback in the job's judge.log). For each job it regenerates each case's inputs from
the same seed, checks they match the candidate's (fingerprints), computes the reference (cached
per run), reads the candidate's outputs from safetensors (no pickle, size-capped) and compares
them. It writes judge.json; the verdict is derived from it in the CLI process
(kgb.runner.verdict). One process for many jobs saves a torch import and a CUDA start per job;
kgb.runner.judge_pool restarts it after any error, so a sticky CUDA error never judges twice."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

MAX_OUTPUT_FILE = 4 << 30
MAX_CACHED_REFERENCE = 16 << 20  # execute.py prunes larger files after each job anyway


def serve(cache_dir: Path, device: str) -> int:
    import traceback

    import torch

    # The answer channel gets its own descriptor; anything else printed to stdout (a reference,
    # torch, a C library) goes to stderr and can never pass for an answer.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        job_dir = Path(line.strip())
        try:
            judge_job(job_dir, cache_dir, device)
            answer = "ok"
        except BaseException:  # noqa: BLE001 - reported to the host, which restarts us
            (job_dir / "judge.log").write_text(traceback.format_exc()[-20000:])
            answer = "error"
        if device.startswith("cuda"):
            torch.cuda.empty_cache()  # the next candidate shares this GPU
        print(answer, file=answers, flush=True)
        if answer != "ok":
            return 1
    return 0


def judge_job(job_dir: Path, cache_dir: Path, device: str) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    from kgb.runner.caseio import OUTPUT_KEY
    from kgb.runner.compare import compare_outputs
    from kgb.tasks.casegen import fingerprint, generate_inputs, load_module
    from kgb.tasks.loader import load_task

    job = json.loads((job_dir / "job.json").read_text())
    task = load_task(Path(job["task_dir"]))
    task_inputs = load_module(task.inputs_path, "kgb_task_inputs")
    reference = load_module(task.reference_path, "kgb_task_reference")
    claimed = _candidate_cases(Path(job["out_dir"]) / "result.json")
    cases_out = []
    for case in job["cases"]:
        entry: dict[str, Any] = {"id": case["id"], "status": "not_run", "max_abs": None,
                                 "rel_l2": None, "message": ""}
        cases_out.append(entry)
        record = claimed.get(case["id"])
        if case.get("skip") or record is None or record.get("status") != "ok":
            continue
        inputs = generate_inputs(task_inputs, case["dims"], case["dtype"], case["mode"],
                                 case["seed"], device, case.get("layout", "contiguous"),
                                 task.strided_inputs)
        if record.get("input_sha256") != fingerprint(inputs):
            entry["status"], entry["message"] = "infra", "input fingerprint differs between workers"
            continue
        try:
            outputs = _load_outputs(Path(job["out_dir"]) / str(record.get("output_file")),
                                    load_file, OUTPUT_KEY, device)
        except Exception as exc:  # noqa: BLE001 - the file is untrusted
            entry["status"], entry["message"] = "fail", f"unreadable outputs: {exc}"
            continue
        if task.compare == "statistical":
            problems = reference.check(tuple(outputs), inputs)
            entry["status"] = "fail" if problems else "pass"
            entry["message"] = "; ".join(problems)
            continue
        expected = _reference_outputs(reference, inputs, cache_dir / task.id, case, device,
                                      load_file, save_file, OUTPUT_KEY, torch)
        result = compare_outputs(outputs, expected, task.tolerance_for(case["dtype"]),
                                 exact=task.compare == "exact")
        entry.update(status="pass" if result.passed else "fail", max_abs=result.max_abs,
                     rel_l2=result.rel_l2, message=result.message)
    tmp = job_dir / "judge.tmp"
    tmp.write_text(json.dumps({"schema": 1, "cases": cases_out}))
    os.replace(tmp, job_dir / "judge.json")


def _candidate_cases(path: Path) -> dict[str, dict]:
    """The candidate's per-case claims, by id; anything malformed is simply absent."""
    try:
        data = json.loads(path.read_text()[: 64 << 20])
        return {c["id"]: c for c in data.get("cases", []) if isinstance(c, dict) and "id" in c}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def _load_outputs(path: Path, load_file, key: str, device: str) -> list:
    if path.parent.resolve() != path.resolve().parent or not path.is_file() or path.is_symlink():
        raise ValueError("output file missing")
    if path.stat().st_size > MAX_OUTPUT_FILE:
        raise ValueError("output file over the size cap")
    tensors = load_file(str(path), device=device)
    names = [key.format(i) for i in range(len(tensors))]
    if sorted(tensors) != sorted(names):
        raise ValueError(f"unexpected tensor names {sorted(tensors)[:4]}")
    return [tensors[n] for n in names]


def _reference_outputs(reference, inputs, cache: Path, case: dict, device: str, load_file,
                       save_file, key: str, torch) -> list:
    path = cache / f"{case['id']}-{case['seed']}.safetensors"
    if path.is_file():
        tensors = load_file(str(path), device=device)
        return [tensors[key.format(i)] for i in range(len(tensors))]
    with torch.no_grad():
        produced = reference.reference(*inputs)
    outputs = list(produced) if isinstance(produced, (tuple, list)) else [produced]
    if sum(t.numel() * t.element_size() for t in outputs) > MAX_CACHED_REFERENCE:
        return outputs  # recomputing is cheaper than a multi-GB round trip through the host
    cache.mkdir(parents=True, exist_ok=True)
    save_file({key.format(i): t.detach().contiguous().cpu() for i, t in enumerate(outputs)},
              str(path))
    return outputs


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), sys.argv[2]))
