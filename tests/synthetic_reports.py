"""Small report.json dicts built by kgb's own report builder (job_entry, build_report), not by
hand: a GPU-like run with per-case timings and a CPU-interpreter run. Shared by
test_report_render.py and test_compare_runs.py (and docs/images/, rendered from `gpu_report`)."""

from __future__ import annotations

from typing import Any

from kgb import protocol as P
from kgb.report.json_report import build_report, job_entry

HOSTILE = "<script>alert('x')</script> | [click](http://evil.example) `rm -rf`"

# task, category, verdict, per-shape (eager_ms, kernel_ms), rule, message, MI
GPU_JOBS: list[tuple[str, str, str, list[tuple[float, float]], str | None, str, float]] = [
    ("normalization.softmax", "Normalization", "passed", [(0.20, 0.10), (0.80, 0.40)], None, "",
     71.0),
    ("normalization.rms_norm", "Normalization", "passed", [(0.30, 0.10), (0.30, 0.30)], None, "",
     65.5),
    ("math.addcmul", "Math", "passed", [(0.10, 0.20), (0.40, 0.80)], None, "", 80.2),
    ("matmul.matmul", "MatrixMultiply", "passed", [(1.00, 0.80), (4.00, 3.20)], None, "", 48.0),
    ("matmul.bmm", "MatrixMultiply", "incorrect", [], None,
     "case large-float16-standard: 12 of 4096 elements differ", 52.0),
    ("activation.gelu", "Activation", "rejected", [], "S101", HOSTILE, 90.0),
    ("activation.relu", "Activation", "missing", [], None, "", 0.0),
]


def _intensity(task: str) -> float:
    """FLOP per byte: a GEMM is compute-heavy, the rest are bandwidth-bound."""
    return 300.0 if "matmul" in task else 0.5 + len(task) % 5


def _cases(task: str, n: int, passed: bool) -> tuple[tuple[P.CaseSpec, ...],
                                                     tuple[P.CaseOutcome, ...]]:
    specs, outcomes = [], []
    for i in range(max(n, 2)):
        case_id = f"s{i}-float16-standard"
        specs.append(P.CaseSpec(case_id, f"s{i}", {"N": 1024 << i}, "float16", "standard",
                                "contiguous", (), flops=4e8 * (i + 1) * _intensity(task),
                                bytes=4e8 * (i + 1)))
        ok = passed or i > 0  # an incorrect kernel fails its first case
        outcomes.append(P.CaseOutcome(case_id, P.CaseStatus.PASSED if ok else
                                      P.CaseStatus.FAILED, max_abs=1e-3, rel_l2=1e-4,
                                      message="" if ok else "12 of 4096 elements differ"))
    return tuple(specs), tuple(outcomes)


def _timing(spec: P.CaseSpec, eager_ms: float, kernel_ms: float) -> P.CaseTiming:
    tflops = spec.flops / (kernel_ms * 1e-3) / 1e12
    gbps = spec.bytes / (kernel_ms * 1e-3) / 1e9
    return P.CaseTiming(case=spec.id, shape=spec.shape, dtype=spec.dtype, reps=100,
                        median_ms=kernel_ms, iqr_ms=kernel_ms * 0.02, cv=0.01,
                        min_ms=kernel_ms * 0.98, eager_ms=eager_ms, compile_ms=eager_ms * 0.9,
                        flops=spec.flops, bytes=spec.bytes, tflops=tflops, gbps=gbps,
                        flops_fraction=tflops / 989.0, bandwidth_fraction=gbps / 3350.0)


def _entry(task: str, category: str, verdict: str, shapes: list[tuple[float, float]],
           rule: str | None, message: str, mi: float, gpu: bool) -> dict[str, Any]:
    slot = "cuda:0" if gpu else "cpu"
    specs, outcomes = _cases(task, len(shapes), verdict != "incorrect")
    if verdict == "missing":
        specs, outcomes = (), ()
    if verdict == "rejected":  # layer 1 refused it: no case ran
        outcomes = ()
    timings = tuple(_timing(s, e, k) for s, (e, k) in zip(specs, shapes)) if gpu else ()
    speedup = None
    if timings:
        ratios = [t.eager_ms / t.median_ms for t in timings]  # type: ignore[operator]
        speedup = 1.0
        for r in ratios:
            speedup *= r
        speedup **= 1 / len(ratios)
    code = P.CodeMetrics(mi=mi, cc_max=3, cc_mean=2.0, functions=2) if mi else None
    plan = P.PlanRecord(task, category, None if verdict == "missing" else f"kernels/{task}.py",
                        slot, 60.0, specs, timing=gpu, code=code)
    layer = 1 if rule else None
    record = P.JobRecord(
        P.VerdictRecord(P.Verdict(verdict), rule=rule, layer=layer, message=message,
                        location=f"kernels/{task}.py:12:4" if message else "",
                        cases=outcomes),
        P.JobFacts(f"jobs/{task}", slot, time_ms=timings[-1].median_ms if timings else None,
                   speedup_eager=speedup, speedup_compile=speedup and speedup / 0.9,
                   timings=timings))
    return job_entry(plan, record)


def _environment(gpu: bool) -> dict[str, Any]:
    common = {"kgb": "0.1.0", "python": "3.11.7", "torch": "2.13.0", "triton": "3.9.0",
              "sandbox": {"backend": "docker", "isolation": "container"}, "timing": "on",
              "baselines": "all", "static_layer": "on"}
    if gpu:
        return dict(common, device="cuda:0", device_name="NVIDIA H100 80GB HBM3",
                    interpreter=False, timings_meaningful=True, cuda="12.8", driver="570.1")
    return dict(common, device="cpu", device_name="CPU (Triton interpreter)", interpreter=True,
                timings_meaningful=False)


def make_report(gpu: bool, jobs=GPU_JOBS, device_name: str | None = None) -> dict[str, Any]:
    entries = [_entry(*job, gpu=gpu) for job in jobs]
    env = _environment(gpu)
    if device_name:
        env["device_name"] = device_name
    header = {"environment": env, "limits": {}, "seed": 7,
              "submission": {"name": "synthetic-submission"},
              "manifest": {"tasks": [j[0] for j in jobs], "tokens": None}}
    return build_report(header, entries, complete=True)


def gpu_report(**kwargs) -> dict[str, Any]:
    return make_report(True, **kwargs)


def cpu_report(**kwargs) -> dict[str, Any]:
    return make_report(False, **kwargs)
