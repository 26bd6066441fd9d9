"""Calibration of the judge's rounding-noise rule (kgb/judge/compare.py), on a GPU.

    python scripts/gpu/noise_calibration.py REPORT.json   (on a CPU: DEV=cpu TRITON_INTERPRET=1)

For every task that did not pass in REPORT.json (a `kgb suite check` report), the case its
message names is regenerated (seeds 7 and 8) and the suite's own solution run in-process (our
trusted code), beside the reference, the task's float32 `baseline` and the float64 truth.
Printed per output: the misses, and every result's distance to the truth — worst and norm, in
units of the sensitivity to one float32 rounding of the inputs, of the honest worst error, and
of each element's own bound. Session 20 calibrated the rule with it (docs/decisions.md)."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import torch

from kgb.judge.truth import as_outputs, float64_truth, sensitivity
from kgb.tasks.casegen import generate_inputs, load_module
from kgb.tasks.model import Task, Tolerance

U32 = 2.0 ** -24  # float32's unit roundoff: the sensitivity's perturbation
DEV = os.environ.get("DEV", "cuda")
CASE = re.compile(r"(.+)-(float32|float16|bfloat16)-(\w+?)(?:-\w+)?$")


def _output_line(out, ref, truth, moves, base, tol: Tolerance) -> str:
    o, r, t, m, b = (v.double().flatten() for v in (out, ref, truth, moves, base))
    usable = torch.isfinite(r) & torch.isfinite(t)
    missed = usable & ((o - r).abs() > tol.atol + tol.rtol * r.abs())
    out_err, ref_err, base_err = (o - t).abs(), (r - t).abs(), (b - t).abs()
    honest_max = max(float(ref_err[usable].max()), float(base_err[usable].max()))
    bound = tol.atol + tol.rtol * t.abs()
    per_miss = out_err / torch.maximum(m, torch.full_like(m, honest_max)).clamp_min(1e-300)

    def worst(values: torch.Tensor, where: torch.Tensor) -> float:
        return float(values[where].max()) if bool(where.any()) else 0.0

    return (f"missed {int(missed.sum())}/{o.numel()}; "
            f"miss/max(moves, honest worst) {worst(per_miss, missed):.3g}; "
            f"miss/bound {worst(out_err / bound, missed):.3g} vs honest "
            f"{max(worst(ref_err / bound, usable), worst(base_err / bound, usable)):.3g}; "
            f"worst kernel {worst(out_err, usable):.3g} reference {worst(ref_err, usable):.3g} "
            f"baseline {worst(base_err, usable):.3g}; norms kernel "
            f"{float(out_err[usable].norm()):.3g} reference {float(ref_err[usable].norm()):.3g} "
            f"baseline {float(base_err[usable].norm()):.3g} moves {float(m[usable].norm()):.3g}")


def calibrate(task: Task, case_id: str, seed: int) -> str:
    shape_name, dtype, mode = CASE.match(case_id).groups()
    shape = next(s for s in task.shapes if s.name == shape_name)
    inputs_module = load_module(task.inputs_path, f"cal_inputs_{seed}_{id(task)}")
    reference = load_module(task.reference_path, f"cal_reference_{seed}_{id(task)}")
    solution = load_module(task.solution_path, f"cal_solution_{seed}_{id(task)}")
    inputs = generate_inputs(inputs_module, shape.as_dict(), dtype, mode, seed, DEV)
    with torch.no_grad():
        expected = as_outputs(reference.reference(*inputs))
        baseline = getattr(reference, "baseline", None)
        base = as_outputs(baseline(*inputs)) if baseline else expected
    copies = tuple(v.clone() if isinstance(v, torch.Tensor) else v for v in inputs)
    outputs = as_outputs(getattr(solution, task.entry)(*copies))
    truth = float64_truth(reference.reference, inputs)
    if isinstance(truth, str):
        return f"no truth: {truth}"
    moves = sensitivity(reference.reference, inputs, truth, U32)
    if isinstance(moves, str):
        return f"no sensitivity: {moves}"
    tol = task.tolerance_for(dtype)
    return " || ".join(f"out{i}: " + _output_line(*parts, tol) for i, parts in
                       enumerate(zip(outputs, expected, truth, moves, base)))


def main() -> None:
    from kgb.tasks.loader import load_suite

    suite = load_suite(Path("tasks"))
    report = json.loads(Path(sys.argv[1]).read_text())
    for job in report["jobs"]:
        if job["verdict"] == "passed":
            continue
        case_id = job["message"].split(":")[0]
        for seed in (7, 8):
            start = time.time()
            try:
                line = calibrate(suite[job["task"]], case_id, seed)
            except Exception as exc:  # one task's failure must not stop the calibration
                line = f"ERROR {type(exc).__name__}: {str(exc)[:200]}"
            print(f"{job['task']} {case_id} seed {seed}: {line} ({time.time() - start:.0f} s)",
                  flush=True)
            if DEV == "cuda":
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
