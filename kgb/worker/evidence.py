"""Evidence the worker gathers while the candidate runs (layer 2). It is only evidence: the
candidate shares this process and could forge it, so every rule that reads it is backed by
something the candidate cannot touch (outputs judged on the trusted side, design rule 0)."""

from __future__ import annotations

import contextlib
import functools
import os
from typing import Any

from kgb.worker.casts import cast_note
from kgb.worker.custom_ops import (
    below_python,
    higher_order_key,
    is_higher_order,
    is_pytorch_op,
    runs_python,
)
from kgb.worker.launch_args import (
    MAX_NOTES,
    KernelBodyWatch,
    refused_arguments,
    refused_callables,
)


class LaunchCounter:
    """Counts launches of @triton.jit kernels whose code lives in the candidate's file, and in
    a ghost call turns every Triton launch into a no-op.

    A launch goes through JITFunction.run / InterpretedFunction.run (`kernel[grid](...)`,
    autotune and heuristics wrappers, torch.library's wrap_triton) or, for a compiled kernel
    (`kernel.warmup(...)`, Triton's softmax tutorial), through CompiledKernel.run, which its
    `[grid]` launcher calls too; warm-up calls are not launches. The interpreter's
    GridExecutor called directly, past InterpretedFunction.run, is refused: a launch is
    screened, counted and watched, or it does not run."""

    def __init__(self, kernel_path: str, trace: DispatchTrace | None = None) -> None:
        self.kernel_path = os.path.realpath(kernel_path)
        self._owners: dict[str, bool] = {}  # co_filename → is the candidate's file
        self.count = 0
        self.ghost = False
        self.trace = trace  # paused while a Triton launch runs (its own aten ops are not ours)
        self.refused: set[str] = set()  # launch arguments no compiled kernel takes (threat 34)
        self.body = KernelBodyWatch()  # PyTorch run by interpreted kernel bodies (threat 34)
        self.inside = 0  # launches in progress through JITFunction/InterpretedFunction.run
        self._executors = 0  # GridExecutor calls the screened interpreted launches may make

    def reset(self, ghost: bool = False) -> None:
        """Start counting a new call; `ghost`: own-file launches do nothing (ghost replay)."""
        self.count = 0
        self.ghost = ghost
        self.refused = set()
        self.body.ops = set()

    def launch_evidence(self) -> dict[str, Any]:
        """The call's threat-34 evidence, as CallRecord fields."""
        return {"host_arguments": tuple(sorted(self.refused))[:MAX_NOTES],
                "kernel_body_ops": tuple(sorted(self.body.ops))[:MAX_NOTES]}

    def screen(self, kernel: Any, args: tuple, kwargs: dict, grid: Any = None) -> None:
        """Refuse a launch handing the kernel a host object, before it compiles or runs
        (compiled Triton evaluates constexprs in its code generator, so a module passed as
        one could run Python even there), or one where Triton would call back into code that
        is not the candidate's own Python (refused_callables); the refusal stays in the
        evidence even if the candidate catches the error."""
        refused = refused_arguments(kernel, args, kwargs)
        hint = "pass tensors, numbers and compile-time constants only"
        if not refused and self.trace is not None and self.trace._mode is not None:
            # only where the watch judges frames: a checked call (timed launches stay cheap)
            refused = refused_callables(kernel, grid)
            hint = "hooks and grid functions must be Python functions of the kernel file"
        if refused:
            self.refused.update(refused[:MAX_NOTES])
            raise TypeError(f"kgb refused this launch: {refused[0]}; {hint}")

    def refuse(self, note: str) -> None:
        self.refused.add(note)
        raise TypeError(f"kgb refused this launch: {note}")

    def _watching(self, interpreted: bool, kernel: str) -> Any:
        """The body watch: always around an interpreted body; around a compiled launch (its
        pre-run hooks, grid function, allocator) only while a call is traced, so timed
        launches pay nothing for it."""
        traced = self.trace is not None and self.trace._mode is not None
        return self.body.watching(kernel) if interpreted or traced else contextlib.nullcontext()

    def compile_watch(self, kernel: str) -> Any:
        """What a compile on the pre-compile's pool runs under (precompile.py): the body watch
        a compile on the main thread runs under inside its launch (a dispatch mode is per
        thread), so Python a compile calls back into cannot run PyTorch unseen there."""
        return self._watching(False, kernel)

    def install(self) -> None:
        from triton.runtime.jit import JITFunction

        classes = [JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction
            classes.append(InterpretedFunction)
        except ImportError:  # pragma: no cover - older triton
            pass
        for cls in classes:
            self._wrap(cls)
        if self.trace is not None:
            self.trace.watch_host_reads()
        try:
            from triton.runtime.interpreter import GridExecutor
            self._wrap_grid_executor(GridExecutor)
        except ImportError:  # pragma: no cover - older triton
            pass
        try:
            from triton.compiler.compiler import CompiledKernel
        except ImportError:  # pragma: no cover
            return
        self._wrap_compiled(CompiledKernel)

    @contextlib.contextmanager
    def paused(self):
        if self.trace is not None:
            self.trace.paused += 1
        try:
            yield
        finally:
            if self.trace is not None:
                self.trace.paused -= 1

    def _own(self, python_function: Any) -> bool:
        code = getattr(python_function, "__code__", None)
        if code is None:
            return False
        name = code.co_filename  # realpath costs syscalls on every launch: remember the answer
        own = self._owners.get(name)
        if own is None:
            own = self._owners[name] = os.path.realpath(name) == self.kernel_path
        return own

    def _wrap_compiled(self, cls: Any) -> None:
        """CompiledKernel.run hands out the launcher: JITFunction.run calls it (counted
        there), and so do a compiled kernel's `[grid]` runner and a direct `.run(...)`."""
        prop = cls.__dict__.get("run")
        if not isinstance(prop, property) or prop.fget is None:  # pragma: no cover
            raise RuntimeError("kgb cannot watch this Triton's compiled launches "
                               "(CompiledKernel.run is not a property)")
        fget = prop.fget
        counter = self

        def run(self):
            launcher = fget(self)
            if counter.inside:  # JITFunction.run's own launch: screened and counted there
                return launcher
            jit_function = getattr(getattr(self, "src", None), "fn", None)
            own = counter._own(getattr(jit_function, "fn", None))
            name = getattr(self, "name", "?")

            def launch(*args, **kwargs):
                counter.screen(jit_function, (), {})  # the runtime hooks, the allocator
                if own:
                    counter.count += 1
                if counter.ghost:
                    return None
                counter.inside += 1
                try:
                    with counter.paused(), counter._watching(False, name):
                        return launcher(*args, **kwargs)
                finally:
                    counter.inside -= 1

            return launch

        cls.run = property(run)

    def _wrap_grid_executor(self, cls: Any) -> None:
        original = cls.__call__
        counter = self

        def call(self, *args, **kwargs):
            # one executor per screened InterpretedFunction.run, and none from inside it (a
            # grid function or hook of a screened launch starting an unscreened one)
            if not counter._executors:
                name = getattr(getattr(self, "fn", None), "__name__", "?")
                counter.refuse(f"{name}: launched through the interpreter's GridExecutor "
                               f"directly, past Triton's launcher (use kernel[grid](...))")
            counter._executors -= 1
            try:
                return original(self, *args, **kwargs)
            finally:
                counter._executors += 1

        cls.__call__ = call

    def _wrap(self, cls: Any) -> None:
        original = cls.run
        counter = self

        interpreted = cls.__name__ == "InterpretedFunction"

        def run(self, *args, grid, warmup, **kwargs):
            counter.screen(self, args, kwargs, grid)
            if not warmup:
                if counter._own(getattr(self, "fn", None)):
                    counter.count += 1
                if counter.ghost:
                    return None  # ghost replay: no Triton kernel runs at all
            counter.inside += 1
            counter._executors += interpreted
            try:
                with counter.paused(), counter._watching(interpreted,
                                                         getattr(self, "__name__", "?")):
                    return original(self, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                counter.inside -= 1
                counter._executors -= interpreted

        cls.run = run


# aten ops honest host glue performs: allocation, views, copies and fills (design.md, layer 2).
# Anything else the candidate's host code dispatches is PyTorch computing the answer.
GLUE_OPS = frozenset({
    # allocation
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros",
    "zeros_like", "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full",
    "scalar_tensor",
    # (`lift_fresh`, host data made a tensor — torch.tensor, from_numpy, as_tensor — is not
    # glue: an answer computed with numpy or Python came back through it, then a Triton copy)
    # views
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "transpose", "t",
    "permute", "expand", "expand_as", "unsqueeze", "squeeze", "slice", "select", "narrow",
    "unfold", "alias", "detach", "diagonal", "split", "split_with_sizes", "chunk", "unbind",
    "tensor_split", "movedim", "view_as_real", "view_as_complex", "unflatten", "flatten",
    "contiguous", "_conj", "_neg_view", "as_strided_", "squeeze_", "unsqueeze_", "t_",
    "transpose_",
    # copies and fills
    "copy_", "clone", "_to_copy", "to", "fill_", "zero_", "fill", "_copy_from",
    "_copy_from_and_resize", "_local_scalar_dense_disallowed",
    # queries that dispatch
    "is_same_size", "is_contiguous", "size", "stride", "sym_size", "sym_stride", "sym_numel",
    "sym_storage_offset", "dim", "numel", "_has_compatible_shallow_copy_type", "is_pinned",
    "record_stream_disallowed",
})

# Glue ops that write tensor data taken from other tensors (a materialising copy: `.contiguous()`
# of a strided view dispatches `clone`, `out[...] = x` and `narrow(...).copy_` dispatch `copy_`,
# `torch.tensor([x[0, 1], ...])` reads elements into `lift_fresh`). Recorded on every task as
# their own evidence (`copy_ops`); the trusted side decides by the task's glue policy: on a
# task whose answer is a re-layout ("views") the copy is the answer (threat 32).
COPY_OPS = frozenset({"copy_", "clone", "_to_copy", "to", "_copy_from", "_copy_from_and_resize",
                      "lift_fresh", "lift_fresh_copy"})


# Tensor methods that hand a tensor's values to Python without dispatching an aten op on the
# CPU (storage reads and `item()`/`float()` dispatch `_local_scalar_dense`, already compute).
HOST_READS = ("tolist", "numpy", "__array__", "__dlpack__", "__repr__")


# Allocations that hand out memory without writing it. In a checked call each one is filled
# with 0xFF bytes (NaN in every float dtype) before the candidate sees it: an output it never
# wrote reads as NaN even when the allocator hands back the block of a buffer freed a moment ago
# that held the right answer (threat 4; on CUDA's caching allocator a same-size block comes back
# every time, so poisoning the pool before the call is not enough).
UNINITIALIZED_ALLOCATIONS = frozenset({"empty", "empty_like", "empty_strided", "new_empty",
                                       "new_empty_strided"})


def poison(result: Any) -> None:
    """Fill a fresh allocation's whole storage with 0xFF bytes."""
    import torch

    if isinstance(result, torch.Tensor) and result.device.type != "meta":
        storage = result.untyped_storage()
        if storage.nbytes():
            storage.fill_(0xFF)  # type: ignore[attr-defined]  # not in torch's stubs


# The trace host reads are recorded in: the last one that called watch_host_reads (the
# worker has one; the wrappers stay installed on torch.Tensor, so they must not hold a trace).
_READS_TRACE: list[DispatchTrace] = []


def _noting_reads(name: str, original: Any) -> Any:
    @functools.wraps(original)
    def read(self, *args, **kwargs):
        trace = _READS_TRACE[-1] if _READS_TRACE else None
        if trace is not None and trace.counts():
            trace.ops.add(f"{name} (host read)")
        return original(self, *args, **kwargs)

    read.__kgb_host_read__ = True  # type: ignore[attr-defined]
    return read


class DispatchTrace:
    """Records the aten ops the candidate's host code dispatches during a call, outside Triton
    launches (Triton's CPU interpreter moves tensors with aten ops of its own), and poisons the
    memory its uninitialized allocations hand out. An op whose kernel is Python (a torch.library
    custom op) is seen through: what it runs counts, never its name (custom_ops.py)."""

    def __init__(self) -> None:
        self.ops: set[str] = set()
        self.copies: set[str] = set()  # COPY_OPS seen (and fills from a tensor's value)
        self.paused = 0
        self._mode: Any = None

    def start(self) -> None:
        from torch.utils._python_dispatch import TorchDispatchMode

        trace = self

        class Mode(TorchDispatchMode):
            supports_higher_order_operators = True

            @classmethod
            def _should_skip_dynamo(cls) -> bool:
                # torch wraps a mode's __torch_dispatch__ in torch._disable_dynamo, whose
                # first call imports torch._dynamo: 1.7 s of CPU in every worker (issue 24).
                # The worker never compiles with Dynamo (the static layer bans it), so there
                # is nothing for the wrapper to disable; the trace's ops are the same.
                return False

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if trace.paused:
                    return func(*args, **kwargs)
                if is_higher_order(func):  # its Python body runs under the mode, traced
                    with type(self)():
                        return func.dispatch(higher_order_key(args, kwargs), *args, **kwargs)
                keys = below_python(func, args, kwargs)
                if runs_python(func, keys, kwargs):  # a custom op: judged by what it runs
                    return trace.inside(func, args, keys, kwargs, type(self))
                if not is_pytorch_op(func):  # native code the mode cannot see into
                    trace.ops.add(func.name())
                    return func(*args, **kwargs)
                name = trace.record(func, args, kwargs)
                result = func(*args, **kwargs)
                if name in UNINITIALIZED_ALLOCATIONS:
                    poison(result)
                return result

        self.ops = set()
        self.copies = set()
        self._mode = Mode()
        self._mode.__enter__()

    def counts(self) -> bool:
        """Whether the candidate's host code is being traced right now."""
        return self._mode is not None and not self.paused

    def watch_host_reads(self) -> None:
        """Make the host's reads of tensor values evidence (threat 1, host compute): on the
        CPU `tolist()`, `numpy()`, `np.asarray(x)`, DLPack and `repr(x)` dispatch no aten op,
        so an answer computed in Python from them and written back by constant fills left no
        trace. Installed before the candidate is imported (a reference it keeps is the
        wrapper); a read while traced is recorded as `tolist (host read)`."""
        import torch

        _READS_TRACE[:] = [self]
        for name in HOST_READS:
            original = getattr(torch.Tensor, name, None)
            if original is not None and not getattr(original, "__kgb_host_read__", False):
                setattr(torch.Tensor, name, _noting_reads(name, original))

    def stop(self) -> tuple[str, ...]:
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None
        return tuple(sorted(self.ops))

    def inside(self, func: Any, args: tuple, keys: Any, kwargs: dict, mode: type) -> Any:
        """Run an op whose kernel is Python (torch.library: custom_op, triton_op, define +
        impl) again below the Python key under a fresh mode (threat 33): its ops are recorded
        as `relu (in ns::op)`, its allocations poisoned, its launches counted, and its own
        name decides nothing."""
        outer, self.ops = self.ops, set()
        try:
            with mode():
                return func.redispatch(keys, *args, **kwargs)
        finally:
            inner, self.ops = self.ops, outer  # the innermost op names what it ran
            self.ops.update(op if " (in " in op else f"{op} (in {func.name()})" for op in inner)

    def record(self, func: Any, args: tuple, kwargs: dict) -> str:
        """Note a non-glue op; returns the op's name."""
        name = func._schema.name.split("::")[-1]
        if name in COPY_OPS or (name in ("fill_", "fill") and len(args) > 1
                                and hasattr(args[1], "dtype")):  # fill_ from a tensor's value
            self.copies.add(name)
        if name in GLUE_OPS:
            cast = cast_note(name, args, kwargs)
            if cast is not None:  # a cast that can change values computes (casts.py)
                self.ops.add(cast)
            return name
        self.ops.add(name)
        return name
