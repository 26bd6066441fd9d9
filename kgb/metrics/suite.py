"""Rates over a run's submitted kernels, from the report's job entries (pure functions; the
report, the tables, `--fail-under` and `kgb compare` all read these and never compute their
own).

The denominator is the kernels the submission has: a suite task without a kernel (`missing`)
is not a failed kernel, and counting it as one made a submission of 16 correct kernels read
"5% correct" against a 308-task suite. How much of the suite was submitted is its own figure,
`coverage` (submitted / suite tasks of the run), reported beside the rates and gateable with
`--fail-under coverage=1`, so a generator that skips hard tasks is still seen doing it.

- compiled: the kernel reached run time — not refused by the compiler, not rejected before
  running (layer 1);
- correct: `passed`;
- fast_p: correct and more than p times faster than PyTorch eager (p = 0: correct), told only
  for a timed run (never on the CPU interpreter, with --timing off or --baselines none);
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


def submitted(jobs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The jobs that have a kernel (every verdict but `missing`)."""
    return [j for j in jobs if j.get("verdict") != "missing"]


def timed_run(environment: Any) -> bool:
    """Whether a report's environment says its kernels were timed against PyTorch: not on the
    CPU interpreter, not --timing off, not --baselines none."""
    env = environment if isinstance(environment, dict) else {}
    return not (env.get("interpreter") or env.get("device") == "cpu"
                or env.get("timings_meaningful") is False or env.get("timing") == "off"
                or env.get("baselines") == "none")


def rates(jobs: Sequence[dict[str, Any]], timed: bool | None = None) -> dict[str, Any]:
    """compile/correct rates, Correct/Compile, fast_p, geomean speedups over the submitted
    kernels of `jobs`, and the suite coverage. `timed` False: an untimed run, whose fast_p for
    p > 0 is unknown even when no kernel passed (None: judged from the speedups present)."""
    suite_tasks = len(jobs)
    jobs = submitted(jobs)
    total = len(jobs)
    n_compiled = sum(compiled(j) for j in jobs)
    correct = [j.get("verdict") == "passed" for j in jobs]
    speedups = [j.get(SPEEDUP_FIELD) for j in jobs]
    timed_speedups = [s for s, ok in zip(speedups, correct) if ok and s is not None]
    compile_speedups = [float(j["speedup_compile"]) for j in jobs
                        if j.get("verdict") == "passed" and j.get("speedup_compile") is not None]
    known = timed is not False and len(timed_speedups) == sum(correct)
    return {
        "tasks": total,  # the kernels rated: suite tasks with a kernel in the submission
        "suite_tasks": suite_tasks,
        "coverage": _rate(total, suite_tasks),
        "compiled": n_compiled,
        "correct": sum(correct),
        "compile_rate": _rate(n_compiled, total),
        "correct_rate": _rate(sum(correct), total),
        "correct_given_compiled": _rate(sum(correct), n_compiled),
        # fast_p needs a speedup for every correct kernel; without timings (CPU runs,
        # --timing off) only fast_0 = correct rate can be told — also when nothing passed.
        "fast_p": {f"fast_{p:g}": (fast_p(speedups, correct, p) if p == 0 or known else None)
                   for p in FAST_P},
        "geomean_speedup_eager": geomean(timed_speedups),
        "geomean_speedup_compile": geomean(compile_speedups),
        "timed_correct": len(timed_speedups),
    }


def by_category(jobs: Sequence[dict[str, Any]],
                timed: bool | None = None) -> dict[str, dict[str, Any]]:
    """rates() per category, for the categories with at least one submitted kernel (a category
    the submission did not touch has no rate, not 0 %)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for job in jobs:
        groups.setdefault(str(job.get("category")), []).append(job)
    return {name: rates(group, timed) for name, group in sorted(groups.items())
            if submitted(group)}


# `--fail-under NAME=VALUE`: the names a run can be gated on, read from rates().
GATES = ("compile_rate", "correct_rate", "correct_given_compiled", "fast_0", "fast_0.5",
         "fast_0.8", "fast_1", "fast_1.5", "fast_2", "geomean_speedup_eager", "coverage")
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
