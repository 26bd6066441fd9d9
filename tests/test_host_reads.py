"""Host reads of tensor values (issue 26 residual 4, threat 1): on the CPU `tolist()`, `numpy()`,
`np.asarray(x)`, DLPack and `repr(x)` dispatch no aten op, so an answer computed in Python
from them and written back by constant fills (glue) left no evidence; the fixture
tests/fixtures/dynamic/d206_host_values_through_tolist.py passed `activation.relu` so. The
worker now records such a read while it traces the candidate's host code (D206), and nothing
outside a traced call or inside a Triton launch (the interpreter reads values itself)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from kgb.worker.evidence import HOST_READS, DispatchTrace


@pytest.fixture(scope="module")
def trace():
    trace = DispatchTrace()
    trace.watch_host_reads()
    trace.watch_host_reads()  # twice: wraps once
    return trace


def _ops(trace: DispatchTrace, fn) -> tuple[str, ...]:
    trace.start()
    try:
        fn()
    finally:
        ops = trace.stop()
    return ops


X = torch.randn(3, 4)


@pytest.mark.parametrize("read, name", [
    (lambda: X.tolist(), "tolist"), (lambda: X.numpy(), "numpy"),
    (lambda: np.asarray(X), "__array__"), (lambda: np.from_dlpack(X), "__dlpack__"),
    (lambda: repr(X), "__repr__"), (lambda: str(X[0]), "__repr__"),
])
def test_a_read_of_tensor_values_is_evidence(trace, read, name):
    assert f"{name} (host read)" in _ops(trace, read)


def test_reads_outside_a_traced_call_or_inside_a_launch_are_not(trace):
    trace.ops = set()
    assert X.tolist() and X.numpy() is not None  # the worker's own, no trace running
    assert trace.ops == set()

    def launched():
        trace.paused += 1  # what LaunchCounter does around a Triton launch
        try:
            X.numpy()
        finally:
            trace.paused -= 1

    assert _ops(trace, launched) == ()
    assert _ops(trace, lambda: (X.shape, X.dtype, X.stride(), X.data_ptr())) == ()


def test_the_wrappers_keep_what_they_wrap(trace):
    assert X.tolist() == [[float(v) for v in row] for row in X]
    assert all(getattr(getattr(torch.Tensor, n), "__kgb_host_read__", False)
               for n in HOST_READS)
    assert torch.Tensor.tolist.__name__ == "tolist"


def test_reads_go_to_the_trace_that_watches_last():
    """The wrappers stay on torch.Tensor for the process: a trace made after another (a second
    job's in one test process) still gets its reads (seen failing in the full test run)."""
    DispatchTrace().watch_host_reads()
    latest = DispatchTrace()
    latest.watch_host_reads()
    assert "tolist (host read)" in _ops(latest, lambda: X.tolist())
