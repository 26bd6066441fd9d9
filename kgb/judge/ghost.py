"""When a ghost call is evidence (D301, threat 2).

A ghost call runs the entry with every Triton launch a no-op: an honest kernel's outputs must
then be wrong, and right ones mean the answer came from elsewhere. That holds only where the
answer a no-op leaves behind is wrong. An in-place task's no-op leaves the declared inputs as
given; an out-of-place one leaves what the host code allocated: zeros, or an input it copied
before launching (poisoned `empty` memory is never right). Where that idle answer IS right on
a case (seen: `ema_weights` in bfloat16 at its decay cap, an update below the rounding), an
honest kernel's ghost is right too: the replay is no evidence either way. Such a ghost is
inconclusive, named in its message, never D301; a right ghost answer that is not an idle one
is still D301. A job in which no ghost call could tell is not passed: the ghost check could
not run (INFRA: unverified, the suite's side), fail closed."""

from __future__ import annotations

from dataclasses import replace

import torch

from kgb import protocol as P

INCONCLUSIVE = ("inconclusive: without Triton launches the outputs are right, but they are {what}, "
                "which is this case's answer already: the ghost replay cannot tell here")
UNABLE = ("the ghost check (D301) could not run: on every case the answer a no-op leaves (the "
          "in-place inputs as given, zeros, an input passed through) is already right, so no "
          "case can tell Triton's work from none; the task needs a case where it is wrong "
          "(the suite's side, not the kernel's)")


def idle_answer(outputs: list[torch.Tensor], inputs: tuple, inplace: tuple[int, ...]) -> str | None:
    """What needs no kernel that the ghost's `outputs` are exactly, or None: the declared
    inputs as given (in place), or each output all zeros or an input's very bits."""
    tensors = [(i, v) for i, v in enumerate(inputs) if isinstance(v, torch.Tensor)]
    if inplace:
        same = len(outputs) == len(inplace) and all(
            isinstance(inputs[i], torch.Tensor) and _same_bits(o, inputs[i])
            for o, i in zip(outputs, inplace))
        return "the in-place inputs as given" if same else None
    what = []
    for out in outputs:
        if not out.numel() or bool((out == 0).all()):
            what.append("zeros")
            continue
        passed = next((i for i, v in tensors if _same_bits(out, v)), None)
        if passed is None:
            return None
        what.append(f"input {passed} passed through")
    return ", ".join(dict.fromkeys(what)) if what else None


def unable_if_none_told(cases: tuple[P.CaseJudgement, ...], inconclusive: set[tuple[int, int]]
                        ) -> tuple[P.CaseJudgement, ...]:
    """`cases` as judged, unless every ghost call that returned outputs was inconclusive (the
    (case, call) indices in `inconclusive`): then those ghost calls are INFRA, UNABLE."""
    returned = {(ci, c.index) for ci, case in enumerate(cases) for c in case.calls
                if c.kind == P.CallKind.GHOST and c.status in (P.CaseStatus.PASSED,
                                                               P.CaseStatus.FAILED)}
    if not returned or not returned <= inconclusive:
        return cases
    return tuple(replace(case, calls=tuple(
        replace(c, status=P.CaseStatus.INFRA, message=UNABLE) if (ci, c.index) in returned
        else c for c in case.calls)) for ci, case in enumerate(cases))


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        a.contiguous().view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8))
