"""Small defects left by session 28 (issues 24/28 residue), each pinned by a cheap test: the D305
message, the overhead split's threat-13 wait, JobNotStarted's advice, a timeout spent waiting
for a CPU, the timing lock's GPU found by UUID, and a sharded task's run-time budget."""

from __future__ import annotations

from kgb import protocol as P
from kgb.protocol import CallKind as K
from kgb.protocol import CaseStatus as S
from kgb.runner.verdict import decide


def _plan(*ids: str, timeout_s: float = 10.0, compile_budget_s: float = 0.0) -> P.PlanRecord:
    cases = tuple(P.CaseSpec(i, "s", {"N": 4}, "float32", "standard", "contiguous",
                             (P.CallSpec(K.PRIMARY, 7),)) for i in ids or ("a",))
    return P.PlanRecord("t.x", "Math", "kernels/k.py", "cpu", timeout_s, cases,
                        compile_budget_s=compile_budget_s)


# ------------------------------------------------------------------ 1. the D305 message

def test_the_late_write_message_says_what_was_checked_not_a_window():
    """The outputs are re-read while later calls run (347f812): a change may be seen after a
    later call, past the 50 ms wait, so "within 50 ms" misstated it."""
    late = P.CallRecord(0, K.PRIMARY, S.RETURNED, output_types=(P.PLAIN_TENSOR,), launches=1,
                        outputs=(P.OutputMeta("float32", (4,), "cpu"),), late_write=True)
    v = decide(_plan(), P.ExecRecord("process", 0, False, 1.0, False),
               P.WorkerResult("done", (P.CaseRecord("a", (late,)),)), None, None)
    assert v.verdict == "rejected" and v.rule == "D305", v
    assert "within" not in v.message, v.message
    assert "later call" in v.message and "before the kernel was called again" in v.message
