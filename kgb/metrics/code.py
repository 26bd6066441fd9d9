"""Maintainability of a kernel file: radon's maintainability index (MI, 0–100, higher is easier
to maintain) and McCabe cyclomatic complexity (CC) of its functions. Computed by the host from
the submitted source (never inside the sandbox); a file radon cannot parse has no figures."""

from __future__ import annotations

from kgb.protocol import CodeMetrics


def code_metrics(source: str) -> CodeMetrics | None:
    """MI and CC of one kernel file's source; None when radon cannot parse it (a syntax error,
    a file nested too deep: the verdict says what is wrong, not this figure)."""
    try:
        from radon.complexity import cc_visit
        from radon.metrics import mi_visit
    except ImportError:  # a hand-made environment without radon: no figure, the run goes on
        return None
    try:
        blocks = _functions(cc_visit(source))
        mi = float(mi_visit(source, multi=True))
    except (SyntaxError, ValueError, RecursionError, MemoryError, TypeError):
        return None
    ccs = [int(b.complexity) for b in blocks]
    return CodeMetrics(mi=round(mi, 2), cc_max=max(ccs, default=0),
                       cc_mean=round(sum(ccs) / len(ccs), 2) if ccs else 0.0,
                       functions=len(ccs))


def _functions(blocks: list) -> list:
    """Functions and methods: radon also lists each class, whose figure sums its methods
    (already listed), so classes are left out."""
    return [b for b in blocks if not hasattr(b, "methods")]
