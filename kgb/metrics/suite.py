"""Rates over a run's tasks, from the report's job entries (pure functions; the report, the
tables, `--fail-under` and `kgb compare` all read these and never compute their own).

Every task of the run counts, `missing` ones included (a generator that skips hard tasks must
not look better for it), as KernelBench's fast_p does:

- compiled: the kernel reached run time — not missing, not refused by the compiler, not
  rejected before running (layer 1);
- correct: `passed`;
- fast_p: correct and more than p times faster than PyTorch eager (p = 0: correct);
- geomean speedup: over the correct kernels that have a speedup."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgb.metrics.speed import FAST_P, fast_p, geomean

SPEEDUP_FIELD = "speedup_eager"


def compiled(job: dict[str, Any]) -> bool:
    verdict = job.get("verdict")
    if verdict in ("missing", "compile_error"):
        return False
    return not (verdict == "rejected" and job.get("layer") == 1)


def _rate(hits: int, total: int) -> float | None:
    return hits / total if total else None


def rates(jobs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """compile/correct rates, Correct/Compile, fast_p, geomean speedups over a set of jobs."""
    total = len(jobs)
    n_compiled = sum(compiled(j) for j in jobs)
    correct = [j.get("verdict") == "passed" for j in jobs]
    speedups = [j.get(SPEEDUP_FIELD) for j in jobs]
    timed = [s for s, ok in zip(speedups, correct) if ok and s is not None]
    compile_speedups = [float(j["speedup_compile"]) for j in jobs
                        if j.get("verdict") == "passed" and j.get("speedup_compile") is not None]
    return {
        "tasks": total,
        "compiled": n_compiled,
        "correct": sum(correct),
        "compile_rate": _rate(n_compiled, total),
        "correct_rate": _rate(sum(correct), total),
        "correct_given_compiled": _rate(sum(correct), n_compiled),
        # fast_p needs a speedup for every correct kernel; without timings (CPU runs,
        # --timing off) only fast_0 = correct rate can be told.
        "fast_p": {f"fast_{p:g}": (fast_p(speedups, correct, p)
                                   if p == 0 or len(timed) == sum(correct) else None)
                   for p in FAST_P},
        "geomean_speedup_eager": geomean(timed),
        "geomean_speedup_compile": geomean(compile_speedups),
        "timed_correct": len(timed),
    }


def by_category(jobs: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for job in jobs:
        groups.setdefault(str(job.get("category")), []).append(job)
    return {name: rates(group) for name, group in sorted(groups.items())}


# `--fail-under NAME=VALUE`: the names a run can be gated on, read from rates().
GATES = ("compile_rate", "correct_rate", "correct_given_compiled", "fast_0", "fast_0.5",
         "fast_0.8", "fast_1", "fast_1.5", "fast_2", "geomean_speedup_eager")
ALIASES = {"compile": "compile_rate", "correct": "correct_rate", "geomean": "geomean_speedup_eager"}


def gate_value(summary_rates: dict[str, Any], name: str) -> float | None:
    if name.startswith("fast_"):
        return summary_rates["fast_p"].get(name)
    return summary_rates.get(name)


def below(summary_rates: dict[str, Any], gates: dict[str, float]) -> list[str]:
    """The gates the run misses, as `name value < threshold` (a value that could not be
    measured misses its gate too: fail closed)."""
    missed = []
    for name, threshold in gates.items():
        value = gate_value(summary_rates, name)
        if value is None:
            missed.append(f"{name} could not be measured in this run (< {threshold:g})")
        elif value < threshold:
            missed.append(f"{name} {value:.3g} < {threshold:g}")
    return missed


def parse_gates(text: str) -> dict[str, float]:
    """`correct=0.9,fast_1=0.5` → {"correct_rate": 0.9, "fast_1": 0.5}; ValueError with the
    problem otherwise."""
    gates: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, value = part.partition("=")
        name = ALIASES.get(name.strip(), name.strip())
        if not sep or name not in GATES:
            raise ValueError(f"{part!r}: give NAME=VALUE with NAME one of "
                             f"{', '.join(sorted(set(GATES) | set(ALIASES)))}")
        try:
            gates[name] = float(value)
        except ValueError:
            raise ValueError(f"{part!r}: {value.strip()!r} is not a number") from None
    if not gates:
        raise ValueError("give at least one NAME=VALUE, e.g. correct=0.9")
    return gates
