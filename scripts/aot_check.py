"""Compile every Triton kernel that the suite's solutions launch, for a GPU, on a machine without
one: what the CPU interpreter accepts and a GPU's compiler refuses shows here, before a GPU run.

    .venv/bin/python scripts/aot_check.py [--only ID,ID] [--cpu-shapes] [--upto ttir]
    make aot-check          # --upto ttir with the GPU image's Triton (TRITON_GPU_PIN)

Each solution's entry runs on meta tensors (no memory, no arithmetic) at every shape and dtype
of its task; each launch `kernel[grid](...)` is bound exactly as Triton's JIT binds it (the same
specialization: int32/int64, 16-divisibility, ints equal to 1) for the target and compiled to
PTX and cubin (front end, LLVM, ptxas) instead of being run; --upto stops after a stage (the
whole suite's 7193 compilations up to ttir, the front end: ~215 s of CPU; to cubin: 1-3 h).
Autotuned kernels compile every config. Each distinct compilation is done once. Shared memory
beyond the target's (227 KiB on sm_90; known from llir on) is a failure too: Triton raises it
when it loads the kernel on the GPU.

Run 20 on H100s (Triton 3.6): two int8 GEMM solutions called `tl.dot(a, b, acc)` with an int32
accumulator; Triton 3.6 defaults out_dtype to float32 and asserts, 3.9 (here) infers it from acc.
With Triton 3.9 this check gives tl.dot 3.6's float32 default, so it finds that class too;
`make aot-check` runs it with the GPU's Triton itself, installed aside (never into .venv).

A value the host code reads with .item() reads as 3 (0.5 for a float); a solution whose host
code needs more (.tolist(), nonzero) cannot run on meta tensors: it is listed as not checked at
that shape, with the reason.

Exit status: 0 every launch compiled, 1 a kernel failed to compile, 2 bad arguments."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")
SHARED_LIMIT = {90: 232448, 80: 166912, 89: 101376, 100: 232448}  # bytes per block, opt-in max


@dataclass
class Outcome:
    compiled: int = 0
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _first_line(exc: BaseException) -> str:
    """The exception in one line; for a CompilationError, the kernel line it points at and the
    cause (Triton 3.6's failed assertion in tl.dot has no message of its own)."""
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    head = lines[0][:160] if lines else ""
    carets = [i for i, ln in enumerate(lines) if set(ln.strip()) == {"^"}]
    if carets and carets[-1] > 0:
        head += " " + lines[carets[-1] - 1].strip()[:120]
    cause = exc.__cause__ or exc.__context__
    tail = f" <- {type(cause).__name__}: {str(cause).strip()[:200]}" if cause else ""
    return f"{type(exc).__name__}: {head}{tail}".rstrip(": ")


class Compiler:
    """Replaces JITFunction.run and Autotuner._bench while a solution's entry runs."""

    def __init__(self, arch: int, dot_fp32_default: bool = True, upto: str = "cubin") -> None:
        from triton.backends.compiler import GPUTarget
        from triton.compiler import make_backend

        self.arch, self.upto = arch, upto
        self.dot_fp32_default = dot_fp32_default
        self.target = GPUTarget("cuda", arch, 32)
        self.backend = make_backend(self.target)
        self.done: dict[tuple, str | None] = {}  # compilation key -> failure or None
        self.failed: dict[tuple[str, str], list[str]] = {}  # (kernel, failure) -> where
        self.outcome = Outcome()
        self.where = ""

    def compile_launch(self, fn: Any, args: tuple, kwargs: dict) -> None:
        import triton
        from triton import knobs
        from triton.compiler import ASTSource
        from triton.runtime.jit import create_function_from_signature

        kwargs = dict(kwargs)
        kwargs["debug"] = kwargs.get("debug", fn.debug) or knobs.runtime.debug
        for knob in ("instrumentation_mode", "fpsan_homomorphic_casts"):  # as run() adds them
            if hasattr(knobs.compilation, knob):
                kwargs[knob] = getattr(knobs.compilation, knob)
        binder = create_function_from_signature(fn.signature, fn.params, self.backend)
        bound, specialization, options = binder(*args, **kwargs)
        options, signature, constexprs, attrs = fn._pack_args(self.backend, kwargs, bound,
                                                              specialization, options)
        name = f"{Path(fn.fn.__code__.co_filename).parent.name}/{fn.fn.__name__}"
        key = (fn.fn.__code__.co_filename, fn.fn.__name__, repr(signature), repr(constexprs),
               repr(attrs), repr(sorted(options.__dict__.items())))
        if key not in self.done:
            try:
                source = ASTSource(fn, signature, constexprs, attrs)
                if self.upto == "cubin":
                    shared = triton.compile(source, target=self.target,
                                            options=options.__dict__).metadata.shared
                else:
                    shared = self.compile_upto(source, options.__dict__)
                limit = SHARED_LIMIT.get(self.arch)
                self.done[key] = None if limit is None or shared <= limit else \
                    f"OutOfResources: shared memory {shared} > {limit} bytes"
                self.outcome.compiled += 1
            except Exception as exc:  # the compiler's refusal is the finding
                self.done[key] = _first_line(exc)
        failure = self.done[key]
        if failure is not None:
            consts = {fn.arg_names[k[0]]: v for k, v in constexprs.items() if len(k) == 1}
            self.failed.setdefault((name, failure), []).append(f"{self.where} {consts}")
            raise _Refused(failure)

    def compile_upto(self, source: Any, options: dict) -> int:
        """triton.compile's stages up to `self.upto` (its own steps, without its cache or the
        later stages: ttgir and llir cost a third each of a full compile, ptxas a fifth); the
        shared memory the stages reached (0 before llir)."""
        from triton._C.libtriton import ir

        opts = self.backend.parse_options(dict(options, **source.parse_options()))
        context = ir.context()
        ir.load_dialects(context)
        self.backend.load_dialects(context)
        module = source.make_ir(self.target, opts, self.backend.get_codegen_implementation(opts),
                                self.backend.get_module_map(), context)
        stages: dict[str, Any] = {}
        self.backend.add_stages(stages, opts, source.language)
        metadata: dict[str, Any] = {"hash": "aot-check", "target": self.target, **opts.__dict__}
        for ext, stage in list(stages.items())[list(stages).index(source.ext):]:
            module = stage(module, metadata)
            if ext == self.upto:
                break
        return int(metadata.get("shared", 0))

    def install(self) -> Callable[[], None]:
        from triton.language import float32
        from triton.language.semantic import TritonSemantic
        from triton.runtime.autotuner import Autotuner
        from triton.runtime.jit import JITFunction

        compiler = self
        old_run, old_bench, old_dot = JITFunction.run, Autotuner._bench, TritonSemantic.dot

        def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> None:
            compiler.compile_launch(self, args, kwargs)

        def bench(self: Any, *args: Any, config: Any, **kwargs: Any) -> list[float]:
            try:  # every config compiles on the GPU while autotuning
                self.fn.run(*args, **kwargs, **config.all_kwargs())
            except _Refused:
                return [float("inf")] * 3
            return [0.0] * 3

        def dot(self: Any, lhs: Any, rhs: Any, acc: Any, input_precision: Any,
                max_num_imprecise_acc: Any, out_dtype: Any) -> Any:
            # Triton <= 3.6 (the GPU image's) has out_dtype=float32 as tl.dot's default and
            # asserts that an accumulator has it; 3.9 takes the accumulator's dtype. No-op there.
            return old_dot(self, lhs, rhs, acc, input_precision, max_num_imprecise_acc,
                           float32 if out_dtype is None else out_dtype)

        JITFunction.run, Autotuner._bench = run, bench
        if self.dot_fp32_default:
            TritonSemantic.dot = dot

        def restore() -> None:
            JITFunction.run, Autotuner._bench, TritonSemantic.dot = old_run, old_bench, old_dot
        return restore


class _Refused(Exception):
    """A launch whose kernel did not compile: the entry stops there."""


def _meta_mode() -> Any:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_map

    meta = torch.device("meta")

    def to_meta(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and value.device != meta:
            return value.to(meta)
        return meta if isinstance(value, torch.device) else value

    class MetaEverywhere(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func is torch.ops.aten._local_scalar_dense.default:  # .item(): a plausible value
                dtype = args[0].dtype  # (not 1 and not a multiple of 16: those specialize)
                return True if dtype == torch.bool else 3 if not dtype.is_floating_point else 0.5
            if "generator" in kwargs:
                kwargs["generator"] = None
            if "device" in kwargs:
                kwargs["device"] = meta
            return func(*tree_map(to_meta, args), **tree_map(to_meta, kwargs))

    return MetaEverywhere()


def check_task(task: Any, compiler: Compiler, cpu_shapes: bool,
               dtypes: tuple[str, ...] = ()) -> Outcome:
    from kgb.tasks.casegen import load_module, make_generator

    stem = task.id.replace(".", "_")
    began = time.perf_counter()
    compiler.outcome, compiler.failed = Outcome(), {}
    inputs = load_module(task.inputs_path, f"_aot_inputs_{stem}")
    solution = load_module(task.solution_path, f"_aot_solution_{stem}")
    entry = getattr(solution, task.entry)
    shapes = task.shapes_for("cpu") if cpu_shapes else task.shapes
    for shape in shapes:
        for dtype in (d for d in task.dtypes if not dtypes or d in dtypes):
            compiler.where = f"{shape.name}/{dtype}"
            try:
                with _meta_mode():
                    made = inputs.make_inputs(shape.as_dict(), dtype, make_generator("cpu", 0),
                                              "standard")
                    args = tuple(made) if isinstance(made, (tuple, list)) else (made,)
                    build = getattr(inputs, "build_model", None)
                    call = build(entry, "meta") if isinstance(entry, type) and build else entry
                    call(*args)
            except _Refused:
                continue
            except Exception as exc:  # host code that needs values or a GPU: not checked there
                compiler.outcome.notes.append(f"{compiler.where}: not checked ({_first_line(exc)})")
    for (name, failure), where in compiler.failed.items():
        more = f" and {len(where) - 1} more shape/dtype pairs" if len(where) > 1 else ""
        compiler.outcome.failures.append(f"{name}: {failure} (at {where[0]}{more})")
    compiler.outcome.seconds = time.perf_counter() - began
    return compiler.outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated task ids")
    parser.add_argument("--cpu-shapes", action="store_true", help="the CPU shapes only")
    parser.add_argument("--arch", type=int, default=90, help="CUDA compute capability x10")
    parser.add_argument("--tasks", type=Path, default=ROOT / "tasks")
    parser.add_argument("--upto", default="cubin", choices=STAGES,
                        help="the last compiler stage (ttir: the front end, where tl.dot's "
                             "types and shapes are checked; cubin: ptxas too)")
    parser.add_argument("--dtypes", default="", help="comma-separated dtypes (default: all)")
    parser.add_argument("--verbose", action="store_true", help="the notes of every task")
    args = parser.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        print("aot_check: unset TRITON_INTERPRET (the interpreter builds no compilable kernels)")
        return 2
    sys.path.insert(0, str(ROOT))
    import triton

    from kgb.tasks.loader import load_suite

    suite = load_suite(args.tasks)
    only = [t for t in args.only.split(",") if t]
    unknown = [t for t in only if t not in suite]
    if unknown:
        print(f"aot_check: unknown task ids: {', '.join(unknown)}")
        return 2
    compiler = Compiler(args.arch, upto=args.upto)
    restore = compiler.install()
    failed = unchecked = compiled = 0
    try:
        for task_id in only or sorted(suite):
            outcome = check_task(suite[task_id], compiler, args.cpu_shapes,
                                 tuple(d for d in args.dtypes.split(",") if d))
            compiled += outcome.compiled
            failed += bool(outcome.failures)
            unchecked += bool(outcome.notes)
            for line in outcome.failures:
                print(f"FAIL {task_id}: {line}")
            for line in outcome.notes[:None if args.verbose else 1]:
                print(f"note {task_id}: {line}")
            if args.verbose:
                print(f"ok   {task_id}: {outcome.compiled} compilations, "
                      f"{outcome.seconds:.1f} s")
    finally:
        restore()
    print(f"aot_check: triton {triton.__version__}, sm_{args.arch} up to {args.upto}: "
          f"{compiled} compilations, "
          f"{failed} task(s) with a kernel that does not compile, {unchecked} not checked at "
          f"some shape (host code needs values or a GPU)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
