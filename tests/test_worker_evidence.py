"""The worker's dispatch trace poisons what uninitialized allocations hand out in a checked call
(threat 4): a block freed a moment ago that held the right answer comes back as NaN."""

from __future__ import annotations

import torch

from kgb.worker.evidence import DispatchTrace


def _traced(fn):
    trace = DispatchTrace()
    trace.start()
    try:
        return fn(trace), trace.stop()
    finally:
        trace.stop()


def test_every_uninitialized_allocation_reads_nan():
    x = torch.ones(4, 5)

    def allocate(_):
        return [torch.empty(7), torch.empty_like(x), torch.empty_strided((3, 4), (1, 3)),
                x.new_empty((2, 2)), x.new_empty_strided((2, 3), (1, 2)),
                torch.empty(5, dtype=torch.bfloat16), torch.empty(6, dtype=torch.float16)]

    made, ops = _traced(allocate)
    for t in made:
        assert torch.isnan(t).all(), t
    assert ops == ()  # allocations are glue, not PyTorch computing


def test_a_freed_block_handed_back_holds_no_stale_answer():
    # what CUDA's caching allocator does every time (a same-size block comes straight back),
    # and glibc's malloc does for a small block: the stale memory held the right answer
    def stale(_):
        answer = torch.empty(64)
        answer.fill_(3.0)
        del answer
        return torch.empty(64)

    out, _ = _traced(stale)
    assert torch.isnan(out).all()


def test_written_and_initialized_allocations_keep_their_values():
    def honest(_):
        out = torch.empty(8)
        out.fill_(2.0)  # the kernel writes its output after allocating it
        return out, torch.zeros(3), torch.full((2,), 5.0), torch.ones(2, dtype=torch.int32)

    (out, zeros, full, ones), _ = _traced(honest)
    assert out.eq(2.0).all() and zeros.eq(0).all() and full.eq(5.0).all() and ones.eq(1).all()


def test_only_the_candidates_own_allocations_are_poisoned(monkeypatch):
    # Triton's CPU interpreter allocates with aten ops of its own while a launch runs (the
    # trace is paused then), and nothing outside a checked call is touched
    import kgb.worker.evidence as evidence

    poisoned: list[int] = []
    real = evidence.poison
    monkeypatch.setattr(evidence, "poison", lambda t: (poisoned.append(t.numel()), real(t)))

    def launch(trace):
        torch.empty(3)
        trace.paused += 1
        try:
            torch.empty(5)
        finally:
            trace.paused -= 1

    _, ops = _traced(launch)
    torch.empty(11)
    assert poisoned == [3] and ops == ()

