"""What the human reports (Markdown, HTML) read from a report.json, shared so both say the same
thing. The file may come from anyone (`kgb report OUT --format html` renders any file), so
every field is read defensively: a number that is not a number is absent, never a crash."""

from __future__ import annotations

from typing import Any

FAST_P_NAMES = ("fast_0", "fast_0.5", "fast_0.8", "fast_1", "fast_1.5", "fast_2")
VERDICT_ORDER = ("passed", "rejected", "incorrect", "compile_error", "crashed", "timeout",
                 "unverified", "missing")
WORST = 15  # rows in the "worst offenders" tables


def obj(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def num(value: Any) -> float | None:
    """`value` as a float, or None (bools, strings, NaN and infinities are not figures)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value and abs(value) != float("inf") else None


def fmt(value: Any, spec: str = ".2f", none: str = "—") -> str:
    v = num(value)
    return none if v is None else format(v, spec)


def error(value: Any) -> str:
    """An error figure: "inf" and "nan" are facts about the outputs (the same word in the
    terminal, report.md and report.html), "—" only when there is none."""
    if isinstance(value, float) and (value != value or abs(value) == float("inf")):
        return "nan" if value != value else "inf"
    return fmt(value, ".1e")


def times(value: Any, spec: str = ".2f") -> str:
    """A speedup ("1.47×"), or "—" when there is none (never "—×")."""
    v = num(value)
    return "—" if v is None else format(v, spec) + "×"


def compile_speedup(report: dict[str, Any]) -> str:
    """The geomean over torch.compile, or why a run has none (`--baselines eager|none`)."""
    env = report.get("environment")
    chosen = env.get("baselines", "all") if isinstance(env, dict) else "all"
    if chosen != "all":
        return f"not timed (--baselines {chosen})"
    return times(rates(report).get("geomean_speedup_compile"))


def pct(value: Any) -> str:
    return fmt(value, ".0%")


def jobs(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [j for j in report.get("jobs") or () if isinstance(j, dict)]


def env(report: dict[str, Any]) -> dict[str, Any]:
    return obj(report.get("environment"))


def summary(report: dict[str, Any]) -> dict[str, Any]:
    return obj(report.get("summary"))


def rates(report: dict[str, Any]) -> dict[str, Any]:
    return obj(summary(report).get("rates"))


def speedups(report: dict[str, Any]) -> list[tuple[dict[str, Any], float]]:
    """(job, speedup over eager) of every correct kernel with a measured speedup."""
    out = []
    for job in jobs(report):
        s = num(job.get("speedup_eager"))
        if job.get("verdict") == "passed" and s is not None and s > 0:
            out.append((job, s))
    return out


def no_speed_reason(report: dict[str, Any]) -> str | None:
    """Why this report has no speed figures, in one plain sentence; None when it has some.
    Speed columns are never shown empty as if measured."""
    e = env(report)
    if e.get("interpreter") or e.get("device") == "cpu" or e.get("timings_meaningful") is False:
        return ("This run used the CPU (Triton's interpreter): timings are not meaningful there "
                "and are excluded from speedups, fast_p (p > 0) and the composite score. Run "
                "`kgb verify --device cuda` on a GPU for speed figures.")
    if e.get("timing") == "off":
        return "This run was made with --timing off: correctness only, no speed figures."
    if e.get("baselines") == "none":
        return ("This run was made with --baselines none: kernels were timed but not against "
                "PyTorch, so there are no speedups.")
    if not speedups(report):
        return "No correct kernel has a measured speedup in this run."
    return None


def title(report: dict[str, Any]) -> str:
    sub = report.get("submission")
    name = sub.get("name") if isinstance(sub, dict) else None
    return f"kgb report — {name or 'submission'} on {env(report).get('device_name') or '?'}"


def environment_line(report: dict[str, Any]) -> str:
    e = env(report)
    sandbox = obj(e.get("sandbox"))
    parts = [f"device {e.get('device_name') or e.get('device') or '?'}"]
    if e.get("driver"):
        parts.append(f"driver {e['driver']}")
    if e.get("cuda"):
        parts.append(f"CUDA {e['cuda']}")
    parts += [f"{k} {e[k]}" for k in ("kgb", "torch", "triton", "python") if e.get(k)]
    parts.append(f"sandbox {sandbox.get('backend') or '?'} "
                 f"(isolation: {sandbox.get('isolation') or '?'})")
    parts.append(f"seed {report.get('seed')}")
    if e.get("static_layer") == "off":
        parts.append("static layer OFF")
    return ", ".join(str(p) for p in parts)


def warnings(report: dict[str, Any]) -> list[str]:
    """Facts a reader must see before trusting the figures."""
    e = env(report)
    sandbox = obj(e.get("sandbox"))
    out = []
    if not report.get("complete"):
        out.append("Incomplete run: it stopped before every job finished; the figures cover "
                   "the finished jobs (`kgb verify ... --resume` continues it).")
    if e.get("static_layer") == "off":
        out.append("Static layer OFF (--static off, a research option): do not publish these "
                   "verdicts as kgb's.")
    if sandbox.get("isolation") == "none":
        out.append("Isolation: none — the kernels ran as plain processes (no Docker or "
                   "bubblewrap on this machine).")
    out += [str(w) for w in report.get("warnings") or () if isinstance(w, str)]
    return out


def coverage_line(report: dict[str, Any]) -> str | None:
    """How much of the suite the submission covers, said apart from the rates (which are over
    its kernels); None when every task of the run has a kernel."""
    missing = counts(report).get("missing", 0)
    if not missing:
        return None
    r = rates(report)
    return (f"Coverage: {r.get('tasks', '?')} of {r.get('suite_tasks', '?')} suite tasks "
            f"submitted ({fmt(r.get('coverage'), '.1%')}); the rates are over the submitted "
            f"kernels, and the {missing} task(s) without a kernel are listed apart, not counted "
            "as failures (gate on it with --fail-under coverage=1).")


def unrun_line(report: dict[str, Any], shown: int = 4) -> str | None:
    """Kernels that passed while some of their task's shapes did not run on this device (a CPU
    run leaves the gpu_only ones to a GPU; issue 28), named with those shapes; None if none."""
    passed = [j for j in jobs(report) if j.get("verdict") == "passed" and
              isinstance(j.get("unrun_shapes"), list) and j["unrun_shapes"]]
    if not passed:
        return None
    named = "; ".join(f"{j.get('task')}: {', '.join(str(s) for s in j['unrun_shapes'][:2])}"
                      + (" ..." if len(j["unrun_shapes"]) > 2 else "") for j in passed[:shown])
    more = f"; and {len(passed) - shown} more" if len(passed) > shown else ""
    return (f"Not judged on this device: {len(passed)} kernel(s) passed without their task's "
            f"GPU-only shapes, which a kernel right only below some size can still fail "
            f"(`kgb verify --device cuda` runs them) — {named}{more}.")


def failures(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Jobs that were submitted and did not pass, in verdict order (rejections first)."""
    order = {v: i for i, v in enumerate(VERDICT_ORDER)}
    bad = [j for j in jobs(report) if j.get("verdict") not in ("passed", "missing")]
    return sorted(bad, key=lambda j: (order.get(str(j.get("verdict")), 99), str(j.get("task"))))


UNCHECKED_TITLE = "Timing checks that could not run (the speed of these rests on the others):"


def speed_unchecked(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Timing checks that could not run for passed kernels: each reason once, with the tasks it
    applies to (an unknown GPU's missing peaks would otherwise repeat for every job). Their speed
    rests on the checks that did run, or, where the reason says so, no speedup counts."""
    grouped: dict[str, list[str]] = {}
    for job in jobs(report):
        reasons = job.get("speed_unchecked")
        if job.get("verdict") == "passed" and isinstance(reasons, list):
            for reason in reasons:
                grouped.setdefault(str(reason), []).append(str(job.get("task")))
    return list(grouped.items())


def baseline_cache_lines(report: dict[str, Any]) -> list[str]:
    """What the trusted baseline store gave this run (kgb.runner.baseline_cache): how many
    baseline figures came from it and when they were measured, and each reason an entry was
    ignored or not kept, once."""
    state = obj(obj(report.get("environment")).get("baseline_cache"))
    if not state:
        return []
    if state.get("dir") is None:
        return [f"Baseline cache: {state.get('state')}."]
    cached = [t for j in jobs(report) for t in _timings(j)
              if t.get("eager_cached_at") or t.get("compile_cached_at")]
    when = sorted({str(t.get(k)) for t in cached
                   for k in ("eager_cached_at", "compile_cached_at") if t.get(k)})
    lines = []
    if when:
        span = when[0] if len(when) == 1 else f"{when[0]} to {when[-1]}"
        lines.append(f"Baseline from cache, measured at {span} (UTC), for {len(cached)} timed "
                     f"case(s); the cache: {state.get('dir')} (`--baseline-cache off` measures "
                     "afresh).")
    else:
        lines.append(f"Baselines measured in this run; {state.get('stored', 0)} figure(s) kept in "
                     f"the cache {state.get('dir')}.")
    notes = state.get("notes")
    for note in notes if isinstance(notes, list) else []:
        lines.append(f"Baseline cache: {note}.")
    return lines


def _timings(job: dict[str, Any]) -> list[dict[str, Any]]:
    raw = job.get("timings")
    return [t for t in raw if isinstance(t, dict)] if isinstance(raw, list) else []


def task_list(tasks: list[str], shown: int = 4) -> str:
    """The first few task ids, and how many more."""
    more = f" and {len(tasks) - shown} more" if len(tasks) > shown else ""
    return ", ".join(tasks[:shown]) + more


def slowest(report: dict[str, Any], n: int = WORST) -> list[tuple[dict[str, Any], float]]:
    return sorted(speedups(report), key=lambda js: js[1])[:n]


def counts(report: dict[str, Any]) -> dict[str, int]:
    raw = obj(summary(report).get("counts"))
    return {k: int(v) for k, v in raw.items() if isinstance(v, int) and not isinstance(v, bool)}


def by_category(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    raw = obj(summary(report).get("by_category"))
    return {str(k): v for k, v in raw.items() if isinstance(v, dict)}


def cases_cell(job: dict[str, Any]) -> str:
    cov = obj(job.get("coverage"))
    if not cov.get("cases"):
        return ""
    text = f"{cov.get('passed', 0)}/{cov.get('cases', 0)}"
    return text + (f" +{cov['not_checkable']} n/c" if cov.get("not_checkable") else "")


def cost_rows(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The token-cost summary of a run given --pricing or a token log (kgb.cost.render), as in
    the terminal; none when the report has no cost section, or one this kgb cannot read."""
    section = report.get("cost")
    if not isinstance(section, dict):
        return []
    from kgb.cost.render import summary_rows

    try:
        return summary_rows(section)
    except (KeyError, TypeError, ValueError, AttributeError):  # a hand-made or foreign file
        return [("cost", "the report's cost section is not one this kgb can read")]


def code(job: dict[str, Any]) -> dict[str, Any]:
    return obj(job.get("code"))


def where(job: dict[str, Any]) -> str:
    return str(job.get("location") or "")
