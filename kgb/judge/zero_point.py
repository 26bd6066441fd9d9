"""An asymmetric quantizer's codes as what they mean: codes - zero per group (task.toml
`[zero_point]`, docs/tasks.md "Zero points").

Dequantization is (q - zero) * scale, so two answers with the same offsets q - zero and the same
scale are the same weight. A zero point on a .5 tie (-lo / scale = k.5, common with bfloat16
inputs) that another honest float32 rounding flips moves every code of its group by one: as
many codes as a per-tensor scale moves on a tiny shape, so no bound on the codes alone tells the
two apart; the offsets do not move at all. The judge therefore compares the offsets in place of
the codes, and the zero points as an integer output of their own (within int_atol, the same
share or relative L2 bound), after checking that every code and zero point is in the format's
range (offsets alone would let a 4-bit code of 16 stand beside a zero point moved to match)."""

from __future__ import annotations

import torch

from kgb.errors import TaskError
from kgb.tasks.model import ZeroPoint


def _fits(reference: list[torch.Tensor], spec: ZeroPoint) -> str:
    """Why the task's declaration does not fit its reference's outputs ("" when it does)."""
    if max(spec.codes, spec.zeros) >= len(reference):
        return f"output {max(spec.codes, spec.zeros)} does not exist ({len(reference)} outputs)"
    codes, zeros = reference[spec.codes], reference[spec.zeros]
    if codes.is_floating_point() or zeros.is_floating_point() or codes.dim() == 0:
        return "codes and zero points must be integer tensors, the codes at least 1-D"
    k = codes.shape[-1]
    want = (*codes.shape[:-1], -(-k // spec.group))
    if tuple(zeros.shape) != want:
        return f"zero points have shape {tuple(zeros.shape)}, expected {want} for group " \
               f"{spec.group}"
    return ""


def _outside(out: torch.Tensor, spec: ZeroPoint, index: int, what: str) -> str:
    bad = (out.to(torch.int64) < spec.low) | (out.to(torch.int64) > spec.high)
    n = int(bad.sum())
    if not n:
        return ""
    at = [int(i) for i in torch.nonzero(bad)[0]]
    return (f"output {index}: {n} {what} outside the format's range [{spec.low}, {spec.high}]; "
            f"first at {at}: got {int(out[tuple(at)])}")


def _offsets(codes: torch.Tensor, zeros: torch.Tensor, group: int) -> torch.Tensor:
    k = codes.shape[-1]
    expanded = zeros.to(torch.int16).repeat_interleave(group, dim=-1)[..., :k]
    return codes.to(torch.int16) - expanded


def as_offsets(candidate: list[torch.Tensor], reference: list[torch.Tensor],
               spec: ZeroPoint) -> tuple[list[torch.Tensor], list[torch.Tensor], str]:
    """Both answers with the codes replaced by codes - zero (int16), and the candidate's
    problem ("" if none): a code or zero point outside the format's range. Shapes and dtypes
    have been checked against the reference's. A declaration that does not fit the reference's
    outputs is the task's error (TaskError), never a verdict on the kernel."""
    problem = _fits(reference, spec)
    if problem:
        raise TaskError(f"[zero_point] of this task does not fit its reference: {problem}")
    problem = _outside(candidate[spec.codes], spec, spec.codes, "code(s)") or \
        _outside(candidate[spec.zeros], spec, spec.zeros, "zero point(s)")
    out, ref = list(candidate), list(reference)
    out[spec.codes] = _offsets(candidate[spec.codes], candidate[spec.zeros], spec.group)
    ref[spec.codes] = _offsets(reference[spec.codes], reference[spec.zeros], spec.group)
    return out, ref, problem
