"""Figures of a token log: pure functions from CallRecords, prices and verdicts to numbers.

Tokens are summed per (task, model) cell in one pass, and cost is computed once per cell
(cost is linear in tokens, so this equals the sum of per-call costs without a million float
roundings). Every other grouping — per task, per kernel, per model, per submission — merges
cells, so all tables share one definition and always add up.

Unknown is never zero: a model without a price gives cost None ("unpriced"), a kernel with no
logged call gives cost None ("no_calls"), a figure that needs data we lack says "unavailable"
with the reason."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kgb.cost.pricing import ModelPrice
from kgb.cost.usage import CallRecord
from kgb.report.json_report import SPEEDUP_FIELD

PASSED = "passed"
FAST_THRESHOLD = 1.0  # fast_1: passed and speedup strictly above 1.0 (faster than the baseline)


@dataclass(frozen=True)
class Cell:
    """Everything logged for one (task, model) pair."""

    task: str
    model: str
    calls: int
    input: int
    cached: int
    cache_write: int
    output: int
    reasoning: int  # summed over the calls that reported it
    reasoning_calls: int
    calls_without_attempt: int
    attempts: frozenset  # attempt ids seen (int or str)
    call_seconds: float  # sum of ended - started over timed calls
    first_start: float | None
    last_end: float | None
    timed_calls: int  # calls with a usable interval (ended >= started)


class _Acc:
    """Mutable accumulator, local to accumulate(): slots keep the hot loop cheap."""

    __slots__ = (
        "attempts",
        "cache_write",
        "cached",
        "calls",
        "end",
        "input",
        "no_attempt",
        "output",
        "reasoning",
        "reasoning_calls",
        "seconds",
        "start",
        "timed",
    )

    def __init__(self) -> None:
        self.calls = self.input = self.cached = self.cache_write = self.output = 0
        self.reasoning = self.reasoning_calls = self.no_attempt = self.timed = 0
        self.attempts: set = set()
        self.seconds = 0.0
        self.start: float | None = None
        self.end: float | None = None


def accumulate(records: Iterable[CallRecord]) -> dict[tuple[str, str], Cell]:
    """One pass over the log: (task, model) → Cell."""
    accs: dict[tuple[str, str], _Acc] = {}
    for r in records:
        key = (r.task, r.model)
        a = accs.get(key)
        if a is None:
            a = accs[key] = _Acc()
        u = r.usage
        a.calls += 1
        a.input += u.input
        a.cached += u.cached
        a.cache_write += u.cache_write
        a.output += u.output
        if u.reasoning is not None:
            a.reasoning += u.reasoning
            a.reasoning_calls += 1
        if r.attempt is None:
            a.no_attempt += 1
        else:
            a.attempts.add(r.attempt)
        s, e = r.started, r.ended
        if s is not None and e is not None and e >= s:  # ended<started: T204, not wall time
            a.timed += 1
            a.seconds += e - s
            if a.start is None or s < a.start:
                a.start = s
            if a.end is None or e > a.end:
                a.end = e
    return {k: Cell(k[0], k[1], a.calls, a.input, a.cached, a.cache_write, a.output,
                    a.reasoning, a.reasoning_calls, a.no_attempt, frozenset(a.attempts),
                    a.seconds, a.start, a.end, a.timed)
            for k, a in accs.items()}


def cell_cost(cell: Cell, price: ModelPrice | None) -> tuple[float | None, int]:
    """(USD of the priced tokens or None when the model has no price, unpriced tokens)."""
    if price is None:
        return None, cell.input + cell.cached + cell.cache_write + cell.output
    return price.cost(cell.input, cell.cached, cell.cache_write, cell.output)


@dataclass(frozen=True)
class Group:
    """Tokens, cost and wall time of any set of cells (a task, a model, the submission)."""

    calls: int
    attempts: int  # distinct (task, attempt) pairs
    calls_without_attempt: int
    input: int
    cached: int
    cache_write: int
    output: int
    reasoning: int
    reasoning_calls: int
    cost_usd: float | None  # a lower bound when cost_status is "partial"
    cost_status: str  # complete | partial (some tokens unpriced) | unpriced | no_calls
    unpriced_tokens: int  # tokens whose model, or whose kind for that model, has no price
    call_seconds: float | None  # sum of call durations; None when no call was timed
    span_seconds: float | None  # first start to last end
    timed_calls: int

    @property
    def total(self) -> int:
        return self.input + self.cached + self.cache_write + self.output

    def to_dict(self) -> dict:
        return {
            "calls": self.calls, "attempts": self.attempts,
            "calls_without_attempt": self.calls_without_attempt,
            "tokens": {"input": self.input, "cached": self.cached,
                       "cache_write": self.cache_write, "output": self.output,
                       # None, not 0, when no call reported reasoning separately (Anthropic)
                       "reasoning": self.reasoning if self.reasoning_calls else None,
                       "reasoning_calls": self.reasoning_calls,
                       "total": self.total},
            "cost": {"usd": _usd(self.cost_usd), "status": self.cost_status,
                     "unpriced_tokens": self.unpriced_tokens},
            "time": {"call_seconds": _secs(self.call_seconds),
                     "span_seconds": _secs(self.span_seconds), "timed_calls": self.timed_calls},
        }


def _usd(x: float | None) -> float | None:
    return None if x is None else round(x, 9)  # nano-dollars: no float noise in the JSON


def _secs(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def group(cells: Iterable[Cell], prices: Mapping[str, ModelPrice | None]) -> Group:
    cells = list(cells)
    costs = [cell_cost(c, prices.get(c.model)) for c in cells]
    priced = [usd for usd, _ in costs if usd is not None]
    unpriced_tokens = sum(n for _, n in costs)
    calls = sum(c.calls for c in cells)
    if calls == 0:
        status, usd = "no_calls", None
    elif unpriced_tokens == 0 and len(priced) == len(costs):
        # (the length test: a model without a price is never free, even at 0 logged tokens)
        status, usd = "complete", sum(priced)
    elif priced:
        status, usd = "partial", sum(priced)
    else:
        status, usd = "unpriced", None
    starts = [c.first_start for c in cells if c.first_start is not None]
    ends = [c.last_end for c in cells if c.last_end is not None]
    timed = sum(c.timed_calls for c in cells)
    return Group(
        calls=calls,
        attempts=len({(c.task, a) for c in cells for a in c.attempts}),
        calls_without_attempt=sum(c.calls_without_attempt for c in cells),
        input=sum(c.input for c in cells), cached=sum(c.cached for c in cells),
        cache_write=sum(c.cache_write for c in cells), output=sum(c.output for c in cells),
        reasoning=sum(c.reasoning for c in cells),
        reasoning_calls=sum(c.reasoning_calls for c in cells),
        cost_usd=usd, cost_status=status, unpriced_tokens=unpriced_tokens,
        call_seconds=sum(c.call_seconds for c in cells) if timed else None,
        span_seconds=(max(ends) - min(starts)) if timed else None,
        timed_calls=timed)


def by_key(cells: Mapping[tuple[str, str], Cell], prices: Mapping[str, ModelPrice | None],
           index: int) -> dict[str, Group]:
    """Group cells by task (index 0) or by model (index 1)."""
    buckets: dict[str, list[Cell]] = {}
    for key, cell in cells.items():
        buckets.setdefault(key[index], []).append(cell)
    return {name: group(cs, prices) for name, cs in sorted(buckets.items())}


# ---- joined with verdicts -------------------------------------------------------------------

@dataclass(frozen=True)
class Outcomes:
    """What the report says about each kernel (task id → verdict / speedup)."""

    verdicts: dict[str, str]
    speedups: dict[str, float]
    passed: frozenset[str]
    fast_1: frozenset[str] | None  # None: cannot be told yet (see fast_1_reason)
    fast_1_reason: str | None


def outcomes(jobs: list[dict]) -> Outcomes:
    verdicts: dict[str, str] = {}
    speedups: dict[str, float] = {}
    for job in jobs:
        task = job.get("task")
        if not isinstance(task, str):
            continue
        verdicts[task] = str(job.get("verdict"))
        sp = job.get(SPEEDUP_FIELD)
        if isinstance(sp, (int, float)) and not isinstance(sp, bool) and sp == sp:  # not NaN
            speedups[task] = float(sp)
    passed = frozenset(t for t, v in verdicts.items() if v == PASSED)
    fast: frozenset[str] | None = None
    reason: str | None = None
    if not speedups:
        reason = "the report has no speedups yet"
    else:
        untimed = sorted(passed - set(speedups))
        if untimed:
            # Counting only the timed ones would under-count fast kernels and inflate the
            # cost per fast kernel with no warning; say it cannot be told instead.
            reason = (f"{len(untimed)} passed kernel(s) have no speedup "
                      f"(e.g. {untimed[0]}), so fast_1 cannot be counted")
        else:
            fast = frozenset(t for t in passed if speedups[t] > FAST_THRESHOLD)
    return Outcomes(verdicts, speedups, passed, fast, reason)


def per_kernel(total: Group, kernels: int | None, reason: str | None) -> dict:
    """Submission totals divided by a number of kernels (correct, or fast_1).

    The numerator is everything the generator spent — failed attempts and tasks it gave up on
    included — because that is what one good kernel cost."""
    if kernels is None or kernels == 0:
        return {"available": False, "reason": reason or "no such kernel", "kernels": kernels}
    cost = None if total.cost_usd is None else total.cost_usd / kernels
    return {
        "available": True, "kernels": kernels,
        "tokens": {k: round(v / kernels, 3) for k, v in (
            ("input", total.input), ("cached", total.cached), ("cache_write", total.cache_write),
            ("output", total.output), ("total", total.total))},
        "cost_usd": _usd(cost),
        "cost_status": total.cost_status,  # partial → the figure is a lower bound
    }


def attempts_per_success(total: Group, tasks: Mapping[str, Group], passed: frozenset[str]) -> dict:
    """All logged attempts / passed kernels; also the mean attempts of the passed kernels."""
    if not passed:
        return {"available": False, "reason": "no kernel passed", "successes": 0}
    logged_passed = [tasks[t].attempts for t in passed if t in tasks]
    return {
        "available": True, "successes": len(passed), "attempts": total.attempts,
        "value": round(total.attempts / len(passed), 6),
        "mean_attempts_of_passed": (round(sum(logged_passed) / len(logged_passed), 6)
                                    if logged_passed else None),
        # Calls without an attempt id cannot be counted as attempts: the figure is then partial.
        "partial": total.calls_without_attempt > 0,
    }
