"""The static rules (layer 1), declared in the shared registry. Ids group by concern:
S10x the kernel must exist and do the work, S11x PyTorch doing the work instead, S12x timing and
concurrency games, S13x dynamic code and reaching into the interpreter, S14x-S16x tampering and
state, S17x-S18x the outside world."""

from __future__ import annotations

from kgb.anticheat.registry import Rule, declare

UNPARSEABLE = declare(Rule(
    "S100", 1, "unparseable", (22, 25),
    "The kernel file cannot be analysed: a syntax error, nesting too deep or a file too large "
    "for the parser, or bytes that are not UTF-8.",
    "Submit plain UTF-8 Python that `python -m py_compile` accepts."))
ENTRY_MISSING = declare(Rule(
    "S101", 1, "entry-missing", (2, 22),
    "The task's entry is not defined at module level as a def, lambda, class or an alias of one.",
    "Define the entry with `def <entry>(...)` at module level."))
NO_TRITON_KERNEL = declare(Rule(
    "S102", 1, "no-triton-kernel", (1, 2),
    "The file defines no @triton.jit function.",
    "Write the computation as a @triton.jit kernel."))
KERNEL_NOT_LAUNCHED = declare(Rule(
    "S103", 1, "kernel-not-launched", (2, 3, 4),
    "No @triton.jit kernel is launched with kernel[grid](...) on a call path reachable from the "
    "entry (dead branches and code after return do not count).",
    "Launch your kernel as `kernel[grid](...)` from the entry or a helper it calls."))
KERNEL_NEVER_STORES = declare(Rule(
    "S104", 1, "kernel-never-stores", (2, 4, 5),
    "A launched kernel, together with the @triton.jit helpers it calls, never writes memory "
    "(tl.store, atomics, block pointers or tensor descriptors).",
    "Store every result with tl.store (or a descriptor/block-pointer store) in the kernel."))
KERNEL_NEVER_LOADS = declare(Rule(
    "S105", 1, "kernel-never-loads", (2, 7),
    "No launched kernel reads memory or draws random numbers, so the output cannot depend on the "
    "inputs.",
    "Read the inputs inside the kernel with tl.load (or a descriptor/block-pointer load)."))
KERNEL_AS_PYTHON = declare(Rule(
    "S106", 1, "kernel-run-as-python", (1, 2),
    "A @triton.jit function is run as plain Python on the host (called without [grid], or its "
    "body reached through `.fn`), where its code computes with PyTorch, not Triton.",
    "Launch kernels only as kernel[grid](...); never call them or their `.fn` directly."))
TORCH_COMPUTE = declare(Rule(
    "S110", 1, "torch-compute", (1, 3, 18),
    "Host code uses PyTorch compute (torch.* functions, torch.nn, F.*, torch.ops.*, linalg/fft/"
    "special, cuBLAS/cuDNN routes) beyond allocation, views and queries, or torch appears inside "
    "a @triton.jit body.",
    "Do the math in a Triton kernel; on the host use only torch.empty*/zeros*/full*, views and "
    "shape/dtype/device queries."))
TENSOR_COMPUTE = declare(Rule(
    "S111", 1, "tensor-compute", (1, 3, 19),
    "Host code computes on tensors: compute methods (.sum, .exp, .float(), .to(dtype), .item() "
    "...), arithmetic or comparisons on tensors, indexing with a tensor, or item assignment into "
    "one. A move to a device (.cuda(), .to(\"cuda\"), .to(x.device)) is glue.",
    "Keep host code to allocation, views and queries; cast and compute inside the kernel."))
MATMUL_OPERATOR = declare(Rule(
    "S112", 1, "matmul-operator", (1,),
    "Host code uses the @ (matmul) operator.",
    "Compute products with tl.dot inside a Triton kernel."))
TORCH_COMPILER = declare(Rule(
    "S113", 1, "torch-compiler", (1, 22),
    "The file uses torch.compile, torch.jit, TorchDynamo/Inductor, FX or export, which generate "
    "kernels that are not yours.",
    "Write the Triton kernel yourself; do not call PyTorch's compilers."))
TASK_FORBIDDEN = declare(Rule(
    "S114", 1, "task-forbidden-api", (1, 26, 32),
    "The file uses an API that the task's task.toml lists under `forbid`, or a copy method "
    "(`.clone`, `.copy_`) on a task whose answer is a re-layout (`glue = \"views\"`).",
    "Read the task spec (`kgb tasks show ID`) and implement the forbidden step yourself."))
QUANTIZATION_API = declare(Rule(
    "S115", 1, "quantization-api", (26,),
    "A Quantization task uses PyTorch quantization APIs or int8/fp8 matmul helpers "
    "(quantize_per_*, torch.ao, fake_quantize, _int_mm, _scaled_mm, int_repr ...).",
    "Do the scale, round and clamp explicitly in your Triton kernel."))
STREAMS_EVENTS_GRAPHS = declare(Rule(
    "S120", 1, "streams-events-graphs", (12, 14, 24),
    "The file creates, switches, records or synchronizes CUDA streams, events or graphs "
    "(waiting for the whole device, torch.cuda.synchronize(), is allowed).",
    "Launch on the current stream and let the harness time and synchronize."))
CONCURRENCY = declare(Rule(
    "S121", 1, "concurrency", (13, 25),
    "The file uses threads, processes, fork, subprocesses, signals or async code.",
    "Finish all work inside the entry call, on the calling thread."))
DYNAMIC_CODE = declare(Rule(
    "S130", 1, "dynamic-code", (15, 22),
    "The file runs or loads code at run time: exec, eval, compile, __import__, importlib, "
    "pickle/marshal, torch.load, runpy, type() with three arguments.",
    "Write the code out in the file; import only allowed modules with plain import statements."))
INTROSPECTION = declare(Rule(
    "S131", 1, "introspection", (15, 22),
    "The file reaches into the interpreter: getattr/setattr/hasattr/delattr with computed names, "
    "globals(), locals(), vars(), frames, inspect, gc, sys.modules, a module __getattr__, or "
    "dunder attributes such as __globals__, __code__ and __dict__.",
    "Use plain attribute access with literal names."))
NATIVE_CODE = declare(Rule(
    "S132", 1, "native-code", (1, 22, 23),
    "The file loads native code or private bindings: ctypes, cffi, torch.utils.cpp_extension/"
    "load_inline, jiterator, torch._C, CUDA Python bindings.",
    "Write the kernel in Triton."))
TRITON_INTERNALS = declare(Rule(
    "S133", 1, "triton-internals", (2, 14, 15),
    "The file uses Triton beyond its public kernel API: the compiler, runtime internals and "
    "hooks, knobs, testing/benchmark helpers.",
    "Use triton.jit/autotune/heuristics/Config, triton.cdiv/next_power_of_2, triton.language "
    "and kernel[grid](...) launches."))
HOST_OBJECT_CONSTEXPR = declare(Rule(
    "S134", 1, "host-object-constexpr", (34, 1),
    "A launch passes a host object as a tl.constexpr (a tensor, a module, a Python function, a "
    "class or instance of the file, a list or dict), or a constexpr defaults to one: an "
    "interpreted body would run it (PyTorch or anything else), and compiled Triton evaluates "
    "it while compiling.",
    "Pass tensors as ordinary (pointer) arguments and constexprs as int, float, bool, str, "
    "None, a dtype or a @triton.jit function."))
MONKEYPATCH = declare(Rule(
    "S140", 1, "monkeypatch", (14, 15),
    "The file assigns or deletes attributes or items of modules, imported objects, builtins or "
    "Triton kernel objects, or registers torch.library overrides.",
    "Never modify code or objects you did not define in this file."))
MUTABLE_STATE = declare(Rule(
    "S150", 1, "mutable-state", (8, 17),
    "State can survive between calls: module-level or class-level containers and objects written "
    "from functions, global/nonlocal, mutable default arguments, memoized kernel paths, "
    "module-level tensors, attributes written on objects the file did not create.",
    "Compute everything from the call's arguments; allocate outputs inside the call."))
INPUT_MUTATION = declare(Rule(
    "S151", 1, "input-mutation", (9,),
    "The entry writes into one of its arguments on the host (item assignment, in-place method, "
    "out=).",
    "Allocate a new output tensor and leave the inputs untouched."))
RETURNS_INPUT = declare(Rule(
    "S152", 1, "returns-input", (10,),
    "The entry returns one of its arguments or a view of one.",
    "Return a freshly allocated output tensor."))
TENSOR_SUBCLASS = declare(Rule(
    "S160", 1, "tensor-subclass", (11,),
    "The file subclasses torch.Tensor (or Parameter), makes subclass instances, or defines "
    "__torch_function__/__torch_dispatch__ or torch function/dispatch modes.",
    "Return plain tensors from torch.empty*/zeros*."))
IO_ENVIRONMENT = declare(Rule(
    "S170", 1, "io-environment", (16, 17, 23),
    "The file touches the world outside the call: files, sockets, HTTP, the environment, argv, "
    "stdio streams, clocks, sleeping, exiting.",
    "A kernel needs none of these; remove them."))
IMPORT_NOT_ALLOWED = declare(Rule(
    "S180", 1, "import-not-allowed", (22, 23),
    "The file imports a module outside the allowlist (torch, triton, math, typing, functools, "
    "dataclasses, itertools, collections, enum, __future__), imports relatively, or uses `*`.",
    "Import only allowed modules, by name."))
