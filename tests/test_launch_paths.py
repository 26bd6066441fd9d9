"""Every path to a kernel launch is screened and counted, or refused (issue 26 residuals 2, 3).

- A compiled kernel is launched through CompiledKernel.run: by JITFunction.run (counted there),
  by its `[grid]` runner (Triton's softmax tutorial) and by a direct `.run(...)`, which no
  wrapper counted before: a direct launch ran even in a ghost call. Tested here with a
  CompiledKernel whose launcher is a Python function (no GPU on this machine).
- Callables Triton calls inside a launch (pre-run hooks, the grid function, the allocator,
  triton.knobs runtime hooks) run where the dispatch trace is paused; the body watch judges
  their ops by the frames that called torch, so a callable that is not the candidate's own
  Python (torch.Tensor.addmm_ as a pre-run hook did the GEMM from Triton's frame) is refused.
The end-to-end fixtures are tests/fixtures/dynamic/d207_matmul_in_a_builtin_pre_run_hook.py,
d207_matmul_in_a_grid_function.py, d206_matmul_in_an_autotune_pre_hook.py,
dynamic_cpu/d207_grid_executor_called_directly.py and the honest
passed_splitk_matmul_autotune_hooks.py."""

from __future__ import annotations

import functools

import pytest
import torch
import triton
import triton.language as tl
from triton.compiler.compiler import CompiledKernel

from kgb.worker.evidence import LaunchCounter
from kgb.worker.launch_args import refused_callables


def _kernel_fn(x):
    pass


class _Jit:
    """What the screen reads of a JITFunction."""

    def __init__(self, fn=_kernel_fn, hooks=()):
        self.fn = fn
        self.pre_run_hooks = list(hooks)


@pytest.fixture(scope="module")
def counter():
    counter = LaunchCounter(__file__)
    counter.install()
    return counter


def _compiled(launched: list) -> CompiledKernel:
    kernel = CompiledKernel.__new__(CompiledKernel)
    kernel._run = lambda *args: launched.append(args)
    kernel.module = object()  # loaded: _init_handles returns at once
    kernel._module_pid = None  # __del__ unloads nothing
    kernel.name = "k"
    kernel.function = kernel.packed_metadata = None
    kernel.src = type("Src", (), {"fn": _Jit()})()
    return kernel


def test_a_direct_compiled_launch_is_counted_and_a_ghost(counter):
    launched: list = []
    kernel = _compiled(launched)
    counter.reset()
    kernel.run(1, 1, 1, 0, None, None, None, None, None, 7)
    kernel[(2, 1, 1)](8, stream=0)
    assert counter.count == 2 and [a[-1] for a in launched] == [7, 8]
    counter.reset(ghost=True)
    kernel.run(1, 1, 1, 0, None, None, None, None, None, 9)
    assert counter.count == 1 and len(launched) == 2  # counted, and it did not run
    counter.reset()


def test_a_launch_inside_jitfunction_run_is_counted_once(counter):
    launched: list = []
    kernel = _compiled(launched)
    counter.reset()
    counter.inside += 1  # what the JITFunction.run wrapper does around Triton's own run
    try:
        kernel.run(1, 1, 1, 0, None, None, None, None, None, 1)
    finally:
        counter.inside -= 1
    assert counter.count == 0 and len(launched) == 1


def _own_hook(*args):
    pass


@pytest.mark.parametrize("hook, says", [
    (torch.Tensor.addmm_, "a pre-run hook is a method_descriptor (TensorBase.addmm_), not a "
                          "Python function of the kernel file"),
    (functools.partial(torch.mm, out=None), "a pre-run hook is a functools.partial"),
    (torch.nn.functional.relu, "a pre-run hook is relu from functional.py"),
    (triton.cdiv, "a pre-run hook is ConstexprFunction.__call__ from jit.py"),
    (functools.partial(torch.Tensor.copy_), "a pre-run hook is a functools.partial"),
])
def test_hooks_that_are_not_the_candidates_python_are_refused(hook, says):
    [line] = refused_callables(_Jit(hooks=[hook]), None)
    assert line.startswith("_kernel_fn: ") and says in line, line


class _Allocator:
    def __call__(self, size, align, stream):
        return torch.empty(size, dtype=torch.int8)


def test_the_candidates_own_hooks_and_grid_functions_pass():
    own = _Jit(hooks=[_own_hook, functools.partial(_own_hook, 1), lambda *a: None,
                      _Allocator(), _Allocator().__call__])
    assert refused_callables(own, lambda meta: (1,)) == []
    assert refused_callables(own, (4, 1, 1)) == []
    [line] = refused_callables(own, torch.Size)
    assert "the grid is" in line


def test_a_runtime_hook_or_a_builtin_allocator_is_refused():
    from triton import knobs

    knobs.runtime.launch_enter_hook.add(_own_hook)
    try:
        [line] = refused_callables(_Jit(), None)
        assert "triton.knobs.runtime.launch_enter_hook is set" in line
    finally:
        knobs.runtime.launch_enter_hook.remove(_own_hook)
    assert refused_callables(_Jit(), None) == []
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8))
    try:
        assert refused_callables(_Jit(), None) == []  # the honest TMA allocator
        triton.set_allocator(functools.partial(torch.empty, dtype=torch.int8))
        [line] = refused_callables(_Jit(), None)
        assert "the allocator (triton.set_allocator) is a functools.partial" in line
    finally:
        from triton.runtime import _allocation

        triton.set_allocator(_allocation.NullAllocator())


def _copy_body(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def test_an_executor_runs_only_for_its_screened_interpreted_launch(counter):
    """InterpretedFunction.run makes one GridExecutor; one made anywhere else — by the kernel
    file, or inside a screened launch's grid function — is refused."""
    from triton.runtime.interpreter import GridExecutor, InterpretedFunction

    kernel = InterpretedFunction(_copy_body)
    x, y = torch.arange(4.0), torch.zeros(4)
    counter.reset()
    kernel[(1,)](x, y, BLOCK=4)
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0] and counter.count == 1
    with pytest.raises(TypeError, match="GridExecutor directly"):
        GridExecutor(_copy_body, kernel.arg_names, (1,))(x, y, BLOCK=4)

    def grid(meta):
        GridExecutor(_copy_body, kernel.arg_names, (1,))(x, y, BLOCK=4)
        return (1,)

    with pytest.raises(TypeError, match="GridExecutor directly"):
        kernel[grid](x, y, BLOCK=4)
    assert any("GridExecutor directly" in note for note in counter.refused)
    counter.reset()
