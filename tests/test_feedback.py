"""A job's feedback says what failed, where and how to fix it (kgb.report.feedback), for every
verdict, from the report's job entry alone."""

from __future__ import annotations

from kgb.report.feedback import feedback


def case(cid, status, message="", shape="odd", dtype="float16"):
    return {"id": cid, "status": status, "message": message, "shape": shape,
            "dims": {"M": 37, "N": 1000}, "dtype": dtype, "mode": "outlier",
            "layout": "contiguous"}


def test_incorrect_names_the_case_shape_dtype_distribution_and_first_element():
    text = feedback({"task": "normalization.softmax", "verdict": "incorrect", "cases": [
        case("tiny-float32-standard", "passed", shape="tiny"),
        case("odd-float16-outlier", "failed", "output 0: 3 of 37000 elements outside atol=1e-05 "
                                              "rtol=0.005; first at [2, 17]: got 0, expected "
                                              "0.25")]})
    assert "1 of 2 case(s)" in text
    assert "case odd-float16-outlier (shape odd: M=37, N=1000; float16; outlier inputs)" in text
    assert "first at [2, 17]: got 0, expected 0.25" in text
    assert "shapes tiny" in text and "kgb tasks show normalization.softmax" in text


def test_rejected_gives_the_rule_its_fix_and_every_finding():
    text = feedback({"task": "math.addcmul", "verdict": "rejected", "rule": "S110",
                     "location": "k.py:12:4", "message": "`torch.addcmul` is PyTorch compute",
                     "findings": [{"rule": "S110", "message": "`torch.addcmul` is PyTorch compute",
                                   "location": "k.py:12:4"},
                                  {"rule": "S140", "message": "assigns to torch.cuda.Event",
                                   "location": "k.py:3:0"}]})
    assert "rejected by rule S110 at k.py:12:4" in text and "How to comply:" in text
    assert "Also S140 at k.py:3:0: assigns to torch.cuda.Event." in text


def test_every_verdict_has_feedback():
    for verdict in ("passed", "compile_error", "crashed", "timeout", "missing", "unverified"):
        text = feedback({"task": "t.x", "verdict": verdict, "message": "m", "cases": [],
                         "coverage": {"cases": 3}, "location": "k.py:4"})
        assert text.startswith("t.x:") and len(text) > 20
    assert "at k.py:4" in feedback({"task": "t.x", "verdict": "compile_error", "message": "m",
                                    "location": "k.py:4"})


def test_a_cpu_pass_says_which_shapes_were_not_judged():
    """Issue 28: `passed — all 4 case(s) matched` hid that the problem's own shape never ran."""
    job = {"task": "normalization.kb_23_softmax", "verdict": "passed", "coverage": {"cases": 4},
           "unrun_shapes": ["given (batch_size=4096, dim=393216)"], "cases": []}
    text = feedback(job)
    assert text.startswith("normalization.kb_23_softmax: passed on the CPU — all 4 case(s) "
                           "matched the reference, but the task's shape given (batch_size=4096, "
                           "dim=393216) runs on a GPU only and was not judged")
    assert "--device cuda" in text
    assert feedback(dict(job, unrun_shapes=[])) == (
        "normalization.kb_23_softmax: passed — all 4 case(s) matched the reference.")
