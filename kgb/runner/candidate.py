"""The candidate worker: runs INSIDE the sandbox, once per job, as
`python -m kgb.runner.candidate JOB_DIR`.

It imports the untrusted kernel, runs it on every case's inputs (regenerated from the case seed
on the device), checks what only this process can see (input mutation, output aliasing, exact
tensor type, launches of the file's own Triton kernels) and writes outputs as safetensors plus
result.json into the job's output folder. It never sees a reference output: comparison happens
on the trusted side. Everything verdict-relevant goes to files; stdout is only a log."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

# Captured before any candidate code exists in this process (threat 14).
_perf_counter = time.perf_counter
_Event: Any = None


def main(job_dir: Path) -> int:
    # `python -m` put the working folder — the job's writable output folder — first on sys.path:
    # a module planted there would shadow any module the worker imports later (threat 23).
    sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
    job = json.loads((job_dir / "job.json").read_text())
    out_dir = Path(job["out_dir"])
    result: dict[str, Any] = {"schema": 1, "stage": "start", "error": None, "error_kind": None,
                              "autotune_first_config": False, "cases": []}
    try:
        _run(job, result)
    except BaseException as exc:  # noqa: BLE001 - anything the candidate raises is a fact
        result["error"] = _describe(exc)
        result["error_kind"] = "crash"
    _write_json(out_dir / "result.json", result)
    return 0


def _run(job: dict, result: dict) -> None:
    import torch
    import triton  # noqa: F401

    global _Event
    _Event = torch.cuda.Event  # captured before the candidate is imported (threat 14)

    from kgb.runner.caseio import output_file
    from kgb.tasks.casegen import fingerprint, load_module
    from kgb.runner.hooks import LaunchCounter, keep_first_autotune_config
    from kgb.runner.outputs import (aliasing_problem, mutation_problem, normalize_outputs,
                                    poison_allocator, save_outputs)

    device = job["device"]
    out_dir = Path(job["out_dir"])
    if job["interpreter"]:
        from kgb.runner.interpreter_fixes import apply as fix_interpreter

        result["autotune_first_config"] = keep_first_autotune_config()
        result["interpreter_fixes"] = list(fix_interpreter())
    counter = LaunchCounter(job["kernel_path"])
    counter.install()
    # make_inputs only: the task's reference never enters this process (design rule 2).
    task_inputs = load_module(Path(job["inputs_path"]), "kgb_task_inputs")

    result["stage"] = "import"
    try:
        candidate = load_module(Path(job["kernel_path"]), "kgb_candidate")
    except BaseException as exc:  # noqa: BLE001
        result["error"], result["error_kind"] = _describe(exc), "compile"
        return
    entry = candidate.__dict__.get(job["entry"])
    if not callable(entry):
        result["error"] = f"the kernel file does not define a function {job['entry']!r}"
        result["error_kind"] = "compile"
        return
    if job["interpreter"]:
        from kgb.runner.jit_globals import non_constexpr_globals

        uses = non_constexpr_globals(candidate)
        if uses:  # what compiling would have refused: the GPU run's verdict, predicted
            result["error"] = uses[0].message(Path(job["kernel_path"]).name)
            result["error_kind"] = "compile"
            return

    result["stage"] = "cases"
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    for index, case in enumerate(job["cases"]):
        record: dict[str, Any] = {"id": case["id"], "status": "ok", "error": None,
                                  "error_type": None, "rule": None, "launches": 0,
                                  "input_sha256": None, "outputs": [], "output_file": None,
                                  "wall_s": None}
        result["cases"].append(record)
        if case.get("skip"):
            record["status"], record["error"] = "skipped", str(case["skip"])
            continue
        inputs = case_inputs(task_inputs, job, case, device)
        record["input_sha256"] = fingerprint(inputs)
        originals = [t.clone() if isinstance(t, torch.Tensor) else None for t in inputs]
        poison_allocator(inputs, device)
        counter.reset()
        start = _perf_counter()
        try:
            returned = entry(*inputs)
            sync()
        except BaseException as exc:  # noqa: BLE001
            record["status"], record["error"] = "raised", _describe(exc)
            record["error_type"] = _error_type(exc)
            continue
        record["wall_s"] = _perf_counter() - start
        record["launches"] = counter.count
        outputs, problem = normalize_outputs(returned)
        if problem is None:
            problem = aliasing_problem(outputs, inputs) or mutation_problem(inputs, originals)
        if problem is None and counter.count == 0:
            problem = ("D204", "the call launched no @triton.jit kernel defined in the kernel file")
        if problem is not None:
            record["status"], record["rule"], record["error"] = "violation", *problem
            continue
        record["outputs"] = [{"dtype": str(o.dtype).removeprefix("torch."),
                              "shape": list(o.shape), "device": str(o.device)} for o in outputs]
        try:
            save_outputs(outputs, out_dir / output_file(index))
        except Exception as exc:  # noqa: BLE001 - e.g. over the output cap
            record["status"], record["error"] = "raised", f"outputs could not be saved: {exc}"
            record["error_type"] = "runtime"
            continue
        record["output_file"] = output_file(index)
    result["stage"] = "timing"
    if device.startswith("cuda"):
        result["timing"] = _time_largest_case(job, result, task_inputs, entry, device)
    result["stage"] = "done"


def case_inputs(task_inputs, job: dict, case: dict, device: str) -> tuple:
    from kgb.tasks.casegen import generate_inputs

    return generate_inputs(task_inputs, case["dims"], case["dtype"], case["mode"], case["seed"],
                           device, case.get("layout", "contiguous"), job["layout_inputs"])


def _time_largest_case(job: dict, result: dict, task_inputs, entry, device: str) -> dict | None:
    """A first, simple figure: median of CUDA-event times on the largest passing standard case.
    The full timing protocol (L2 flush, input rotation, baselines) belongs to kgb.bench."""
    import torch

    ok = {c["id"] for c in result["cases"] if c["status"] == "ok"}
    candidates = [c for c in job["cases"] if c["id"] in ok and c["mode"] == "standard"]
    if not candidates:
        return None
    case = max(candidates, key=lambda c: _numel(c["dims"]))
    inputs = case_inputs(task_inputs, job, case, device)
    for _ in range(2):
        entry(*inputs)
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        start.record()
        entry(*inputs)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return {"case": case["id"], "median_ms": times[len(times) // 2], "reps": len(times),
            "method": "cuda-events, no L2 flush"}


def _numel(dims: dict) -> int:
    n = 1
    for v in dims.values():
        n *= int(v)
    return n


def _error_type(exc: BaseException) -> str:
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & {"CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"}:
        return "compile"
    # Triton's code generator also raises plain errors, e.g. RuntimeError("Unsupported function
    # referenced") for a Python helper called in a kernel: still a compile error.
    frames = traceback.extract_tb(exc.__traceback__)
    if any("/triton/compiler/" in f.filename.replace("\\", "/") for f in frames[-3:]):
        return "compile"
    return "runtime"


def _describe(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    where = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb)
                  if "kernels" in f.filename or "kgb_candidate" in f.filename), None)
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    # Triton's compile errors put the location first and the cause last: keep both.
    detail = " ... ".join(dict.fromkeys([lines[0], lines[-1]])) if lines else ""
    text = f"{type(exc).__name__}: {detail}"
    return f"{text[:500]} ({where})" if where else text[:500]


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


if __name__ == "__main__":
    code = main(Path(sys.argv[1]))
    sys.stdout.flush()
    sys.stderr.flush()
    # No atexit hook, finalizer or lingering thread of the candidate may run once result.json
    # is written (it could rewrite it); the sandbox then kills any process it left behind.
    os._exit(code)
