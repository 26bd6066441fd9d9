"""Threat 33: the dispatch trace sees through torch.library custom ops. A TorchDispatchMode
sees a custom op as one op and runs its implementation with the mode suspended; the trace
runs it again under the mode, so what the op does is judged (its compute recorded, its
uninitialized allocations poisoned, its Triton launches counted) and its name decides
nothing."""

from __future__ import annotations

import itertools
import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # this file's kernel runs on the CPU

import torch
import triton
import triton.language as tl

from kgb.worker.evidence import DispatchTrace, LaunchCounter

_NAMESPACES = itertools.count()


def _namespace() -> str:
    """A namespace of its own per test: torch.library registrations outlive the test."""
    return f"kgbtest_custom_ops_{os.getpid()}_{next(_NAMESPACES)}"


def _traced(fn, trace: DispatchTrace | None = None):
    trace = trace or DispatchTrace()
    trace.start()
    try:
        return fn(), trace.stop()
    finally:
        trace.stop()


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def test_compute_inside_a_custom_op_named_like_glue_is_seen():
    ns = _namespace()

    @torch.library.custom_op(f"{ns}::clone", mutates_args=())
    def clone(x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)

    x = torch.randn(8)
    out, ops = _traced(lambda: clone(x))
    assert ops == (f"relu (in {ns}::clone)",)
    assert torch.equal(out, torch.relu(x))  # the op still ran, once, as it would have


def test_allocations_inside_a_triton_op_are_poisoned():
    # the stale-memory cheat of threat 4, packaged as a triton_op named like glue
    ns = _namespace()

    @torch.library.triton_op(f"{ns}::clone", mutates_args={})
    def clone(x: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(x)

    out, ops = _traced(lambda: clone(torch.ones(64)))
    assert torch.isnan(out).all() and ops == ()


def test_an_honest_custom_op_is_judged_by_its_launch():
    ns = _namespace()

    @torch.library.custom_op(f"{ns}::relu_out", mutates_args=("out",))
    def relu_out(x: torch.Tensor, out: torch.Tensor) -> None:
        _relu_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)

    @torch.library.triton_op(f"{ns}::relu_fwd", mutates_args={})
    def relu_fwd(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        torch.library.wrap_triton(_relu_kernel)[(triton.cdiv(x.numel(), 64),)](
            x, out, x.numel(), BLOCK=64)
        return out

    trace = DispatchTrace()
    counter = LaunchCounter(__file__, trace)
    counter.install()
    x = torch.randn(100)

    def both():
        out = torch.empty_like(x)
        relu_out(x, out)
        return out, relu_fwd(x)

    (a, b), ops = _traced(both, trace)
    assert ops == () and counter.count == 2
    assert torch.equal(a, torch.relu(x)) and torch.equal(b, torch.relu(x))


def test_ops_defined_and_implemented_through_a_library_are_seen():
    ns = _namespace()
    lib = torch.library.Library(ns, "DEF")
    lib.define("copy(Tensor x) -> Tensor")
    lib.impl("copy", lambda x: torch.sigmoid(x), "CPU")
    lib.define("view(Tensor x) -> Tensor")
    lib.impl("view", lambda x: torch.tanh(x), "CompositeExplicitAutograd")
    lib.define("alias(Tensor x) -> Tensor")
    lib.impl("alias", lambda x: torch.exp(x), "CompositeImplicitAutograd")
    lib.define("full(int n, Device device) -> Tensor")  # no tensor argument at all
    lib.impl("full", lambda n, device: torch.ones(n, device=device).cos(),
             "CompositeExplicitAutograd")
    ops_ns = getattr(torch.ops, ns)
    x = torch.randn(4)
    _, ops = _traced(lambda: (ops_ns.copy(x), ops_ns.view(x), ops_ns.alias(x),
                              ops_ns.full(3, torch.device("cpu"))))
    # (an implicit-autograd op decomposes before any mode sees it: plain aten ops)
    assert set(ops) == {f"sigmoid (in {ns}::copy)", f"tanh (in {ns}::view)", "exp",
                        f"cos (in {ns}::full)"}, ops


def test_nested_custom_ops_name_the_innermost():
    ns = _namespace()

    @torch.library.custom_op(f"{ns}::inner", mutates_args=())
    def inner(x: torch.Tensor) -> torch.Tensor:
        return torch.exp(x)

    @torch.library.custom_op(f"{ns}::outer", mutates_args=())
    def outer(x: torch.Tensor) -> torch.Tensor:
        return inner(x).clone()

    x = torch.randn(4)
    _, ops = _traced(lambda: outer(x))
    assert ops == (f"exp (in {ns}::inner)",)


def test_a_native_op_outside_aten_is_compute_by_its_full_name():
    # mkldnn::_linear_pointwise is a matmul in C++: nothing inside it can be seen, so it counts
    # as PyTorch computing whatever its name, and it runs as it would have
    x, w = torch.randn(3, 4), torch.randn(5, 4)
    out, ops = _traced(lambda: torch.ops.mkldnn._linear_pointwise(x, w, None, "none", [], ""))
    assert ops == ("mkldnn::_linear_pointwise",)
    assert torch.allclose(out, x @ w.T, atol=1e-5)


def test_a_custom_op_outside_a_checked_call_is_untouched():
    ns = _namespace()

    @torch.library.custom_op(f"{ns}::fresh", mutates_args=())
    def fresh(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        out.fill_(1.0)
        return out

    _traced(lambda: fresh(torch.ones(3)))
    assert fresh(torch.ones(3)).eq(1.0).all()


def test_a_python_kernel_under_an_aten_name_is_judged_by_what_it_runs():
    # an overload defined in aten's namespace, and a Python kernel put over aten's own (S140
    # statically): a glue name with compute behind it, seen from layer 2 alone
    overload = f"kgbtest{os.getpid()}"
    defined = torch.library.Library("aten", "FRAGMENT")
    replaced = torch.library.Library("aten", "IMPL")
    try:
        defined.define(f"clone.{overload}(Tensor x) -> Tensor")
        defined.impl(f"clone.{overload}", lambda x: torch.relu(x), "CompositeExplicitAutograd")
        replaced.impl("zero_", lambda x: x.copy_(torch.sigmoid(x)), "CPU")
        x, y = torch.randn(4), torch.randn(3)
        _, ops = _traced(lambda: (getattr(torch.ops.aten.clone, overload)(x), y.zero_()))
    finally:
        defined._destroy()
        replaced._destroy()
    assert set(ops) == {f"relu (in aten::clone.{overload})", "sigmoid (in aten::zero_)"}
    assert torch.zeros(2).fill_(3).zero_().eq(0).all()  # aten's own kernel is back


def _copy_body(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_wrap_triton_outside_a_triton_op_launches_under_the_trace():
    # On a GPU, wrap_triton outside a triton_op dispatches a higher-order op, which a mode
    # must accept (it raised NotImplementedError): it reaches the launch, counted. A compiled
    # JITFunction (not the interpreter's) is what takes that path; on a machine without a GPU
    # its launch then fails for want of a driver, after being counted.
    from triton.runtime.jit import JITFunction

    kernel = JITFunction(_copy_body)
    trace = DispatchTrace()
    counter = LaunchCounter(__file__, trace)
    counter.install()
    x = torch.randn(8)

    def launch():
        out = torch.empty_like(x)
        try:
            torch.library.wrap_triton(kernel)[(1,)](x, out, 8, BLOCK=8)
        except RuntimeError as exc:
            assert "driver" in str(exc), exc
        return out

    _, ops = _traced(launch, trace)
    assert counter.count == 1 and ops == ()
