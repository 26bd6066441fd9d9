"""What a kernel file may touch, as data: the allowlists of host glue and the table that sends
every other API to the rule that forbids it. The rule modules hold no API names of their own,
so docs/static-rules-decisions.md and this file are the whole policy.

Names are fully qualified after alias resolution (`F.relu` -> `torch.nn.functional.relu`,
`exec` -> `builtins.exec`). A table entry matches the name itself and everything below it.
"""

from __future__ import annotations

from kgb.anticheat.registry import Rule
from kgb.anticheat.static import rules as R
from kgb.anticheat.static.tensor_methods import TENSOR_ATTRIBUTES

# --- imports -----------------------------------------------------------------------------------

# Top-level modules a kernel file may import (their submodules too; what is *used* from torch and
# triton is judged name by name below).
IMPORT_ALLOWLIST = frozenset({
    "__future__", "math", "typing", "typing_extensions", "functools", "dataclasses",
    "itertools", "collections", "enum", "torch", "triton",
})

# --- PyTorch glue the host may use -------------------------------------------------------------

_DTYPES = (
    "float16", "half", "float32", "float", "float64", "double", "bfloat16", "int8", "uint8",
    "int16", "short", "int32", "int", "int64", "long", "uint16", "uint32", "uint64", "bool",
    "complex32", "chalf", "complex64", "cfloat", "complex128", "cdouble", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
    "quint8", "qint8", "qint32", "quint4x2",
)
# Calls that allocate a tensor (zeros/ones/full are allocation plus a fill).
TORCH_ALLOCATORS = frozenset(f"torch.{n}" for n in (
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like"))
# Function forms of views: no data is computed, only a new shape/stride over the same storage.
TORCH_VIEWS = frozenset(f"torch.{n}" for n in (
    "reshape", "flatten", "unflatten", "transpose", "permute", "squeeze", "unsqueeze", "t",
    "narrow", "select", "split", "chunk", "unbind", "tensor_split", "movedim", "moveaxis",
    "swapaxes", "swapdims", "as_strided", "broadcast_to", "view_as_real", "view_as_complex",
    "diagonal", "detach"))
# Everything else the host may name in torch: types, queries, device facts, contexts.
TORCH_GLUE = TORCH_ALLOCATORS | TORCH_VIEWS | frozenset(
    [f"torch.{d}" for d in _DTYPES] + [f"torch.{n}" for n in (
        "Tensor", "Size", "dtype", "device", "layout", "memory_format", "Generator", "finfo",
        "iinfo", "is_tensor", "is_floating_point", "is_complex", "numel", "promote_types",
        "result_type", "can_cast", "get_default_dtype", "no_grad", "inference_mode",
        "is_grad_enabled", "broadcast_shapes", "strided", "contiguous_format", "channels_last",
        "channels_last_3d", "preserve_format", "SymInt", "__version__", "version", "types",
        "cuda", "nn", "nn.Module", "nn.Parameter",
        "cuda.get_device_properties", "cuda.current_device", "cuda.device_count",
        "cuda.is_available", "cuda.get_device_capability", "cuda.get_device_name",
        "cuda.device", "cuda.device_of", "cuda.OutOfMemoryError",
        # Waiting for the device moves no work out of the timed window (the harness's events
        # are on the current stream, and streams, events and graphs stay S120); generators
        # write it after launches (issue 28). It only costs the kernel its own time.
        "cuda.synchronize",
        # Wrapping a kernel in an autograd.Function (Liger-Kernel) or registering it as a
        # custom op (torch.library.triton_op launched through wrap_triton, or custom_op) is
        # packaging, not compute; the wrapped code is judged like any other host code (and the
        # dispatch trace runs it under its mode: threat 33).
        "autograd", "autograd.Function", "autograd.function", "autograd.function.FunctionCtx",
        "autograd.function.once_differentiable", "library.triton_op", "library.wrap_triton",
        "_library.triton.wrap_triton", "library.custom_op")])
# What defines a new custom op from a Python function, and the namespaces whose ops the
# dispatch trace knows by name (an op defined there would borrow a glue name: S140).
CUSTOM_OP_DEFINERS = frozenset({"torch.library.custom_op", "torch.library.triton_op"})
PYTORCH_OP_NAMESPACES = frozenset({"aten", "prims"})
# Prefixes whose attributes are plain data (dtype.itemsize, torch.version.cuda ...).
TORCH_GLUE_PREFIXES = tuple(f"torch.{d}." for d in _DTYPES) + (
    "torch.version.", "torch.types.", "torch.Size.", "torch.finfo.", "torch.iinfo.")

# Building parameters in a class's __init__ is not compute on the inputs: a KernelBench
# ModelNew mirrors its Model's nn.Linear / nn.Conv2d / nn.init / torch.randn calls so that the
# same seed gives it the same weights (docs/tasks.md, "KernelBench problems"). Allowed there
# only; calling a submodule in forward stays compute (the layer-2 dispatch trace sees its ops).
PARAMETER_RANDOM = frozenset(f"torch.{n}" for n in ("randn", "rand", "randint", "randperm",
                                                     "normal"))
PARAMETER_FILL_METHODS = frozenset({"normal_", "uniform_", "random_", "bernoulli_",
                                    "exponential_", "geometric_", "cauchy_", "log_normal_"})


def builds_parameters(qname: str) -> bool:
    """torch.nn module classes (nn.Linear, nn.modules.conv.Conv2d), torch.nn.init and the
    random factories: what a module's __init__ calls to make its parameters."""
    if qname.startswith("torch.nn.init.") or qname in PARAMETER_RANDOM:
        return True
    parts = qname.split(".")
    return len(parts) >= 3 and parts[:2] == ["torch", "nn"] and parts[2] != "functional" \
        and parts[-1][:1].isupper()


# --- Triton on the host ------------------------------------------------------------------------

TRITON_ALLOWED = frozenset({
    "triton", "triton.jit", "triton.autotune", "triton.heuristics", "triton.Config",
    "triton.cdiv", "triton.next_power_of_2", "triton.set_allocator", "triton.__version__",
    "triton.constexpr", "triton.OutOfResources", "triton.runtime", "triton.runtime.driver",
    "triton.runtime.driver.active", "triton.runtime.driver.active.utils",
    "triton.runtime.driver.active.get_active_torch_device",
    "triton.runtime.driver.active.utils.get_device_properties",
    "triton.runtime.driver.active.get_current_target",
    "triton.runtime.driver.active.get_current_device",
    "triton.runtime.errors.OutOfResources", "triton.runtime.errors", "triton.tools",
})
TRITON_ALLOWED_PREFIXES = ("triton.language.", "triton.tools.tensor_descriptor",
                           "triton.tools.experimental_descriptor", "triton.Config.")
TRITON_JIT = "triton.jit"
TRITON_AUTOTUNE = "triton.autotune"
TRITON_WRAPPERS = frozenset({"triton.autotune", "triton.heuristics", "triton.jit"})

# Inside kernels: what counts as reading / writing memory, and as a data source of its own.
TL = "triton.language."
KERNEL_STORE_NAMES = frozenset({"store", "_experimental_descriptor_store",
                                "experimental_descriptor_store", "async_copy_shared_to_global"})
KERNEL_LOAD_NAMES = frozenset({"load", "_experimental_descriptor_load",
                               "experimental_descriptor_load", "async_copy_global_to_shared"})
KERNEL_RANDOM_NAMES = frozenset({"rand", "randn", "randint", "randint4x", "philox", "rand4x",
                                 "randn4x"})
# Descriptor objects (tl.make_tensor_descriptor, host TensorDescriptor) load/store as methods.
DESCRIPTOR_METHODS_LOAD = frozenset({"load", "gather"})
DESCRIPTOR_METHODS_STORE = frozenset({"store", "scatter", "atomic_add", "atomic_min",
                                      "atomic_max", "atomic_and", "atomic_or", "atomic_xor"})

# --- tensor attributes -------------------------------------------------------------------------

# Attribute names on a (possibly) tensor receiver that are glue: queries, views, allocation-like
# helpers, plain Python protocol. `values`, `indices` and `index` are also dict/slice/list names.
TENSOR_GLUE_ATTRS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset",
    "element_size", "is_contiguous", "is_floating_point", "is_complex", "is_signed", "data_ptr",
    "get_device", "is_cuda", "is_cpu", "is_leaf", "is_meta", "is_sparse", "is_quantized",
    "dtype", "shape", "device", "layout", "ndim", "itemsize", "nbytes", "requires_grad", "T",
    "mT", "real", "imag", "data", "grad", "view", "view_as", "reshape", "reshape_as",
    "contiguous", "flatten", "unflatten", "ravel", "transpose", "permute", "unsqueeze",
    "squeeze", "expand", "expand_as", "t", "movedim", "moveaxis", "swapaxes", "swapdims",
    "narrow", "select", "unbind", "split", "chunk", "tensor_split", "as_strided", "unfold",
    "diagonal", "detach", "new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided",
    "clone", "copy_", "zero_", "fill_", "broadcast_to", "values", "indices", "index",
    "__getitem__", "__len__",
    "__iter__", "__init__", "__new__", "__repr__", "__str__", "__format__", "__hash__",
    "__sizeof__", "__doc__", "__module__", "__weakref__", "__dir__", "__annotations__",
})
# Glue methods that copy tensor data. A task whose answer is a re-layout (task.toml
# `glue = "views"`) forbids them: there the copy is the answer (threat 32). `.contiguous()` and
# `.reshape()` stay: on a contiguous (viewable) tensor they copy nothing, and the dispatch
# trace sees the copy they make of a strided one (`clone`, D206).
COPY_GLUE_ATTRS = frozenset({"clone", "copy_"})


def glue_forbid(glue: str) -> tuple[str, ...]:
    """The task forbids (S114 entries) a task's glue policy adds."""
    return tuple(f".{m}" for m in sorted(COPY_GLUE_ATTRS)) if glue == "views" else ()


# Tensor methods that move a tensor to a device: glue when every argument names a device
# (devices.py), a cast (S111) otherwise.
DEVICE_MOVE_METHODS = frozenset({"cuda", "to"})
DEVICE_MOVE_KEYWORDS = frozenset({"device", "non_blocking"})
# Methods that return a tensor over the same or new storage without computing values.
TENSOR_PRODUCING_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "contiguous", "flatten", "unflatten", "ravel",
    "transpose", "permute", "unsqueeze", "squeeze", "expand", "expand_as", "t", "movedim",
    "moveaxis", "swapaxes", "swapdims", "narrow", "select", "as_strided", "unfold", "diagonal",
    "detach", "new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided", "clone",
    "zero_", "fill_", "copy_", "broadcast_to"})
# Attributes whose value is never a tensor: `x.device.type`, `x.dtype.itemsize` are not compute.
NON_TENSOR_ATTRS = frozenset({"device", "dtype", "shape", "layout", "ndim", "itemsize",
                              "nbytes", "is_cuda", "is_cpu", "requires_grad"})
# Module-valued attributes of standard modules (`dataclasses.sys`, `enum.bltns`): through an
# object of unknown origin (a parameter) they still reach the module.
MODULE_ATTRS = frozenset({"sys", "_sys", "os", "builtins", "bltns", "inspect", "_thread",
                          "threading", "importlib", "gc", "ctypes", "subprocess", "signal",
                          "socket", "pickle", "marshal", "shutil", "_C", "knobs"})
# Attributes of a kernel object that hand out its body as plain Python (kernel.fn(...)).
KERNEL_PYTHON_ATTRS = frozenset({"fn"})
# The subset that can alias the receiver (used to see `return x.view(...)`).
ALIASING_METHODS = TENSOR_PRODUCING_METHODS - {
    "new_empty", "new_zeros", "new_ones", "new_full", "new_empty_strided", "clone"}
ALIASING_ATTRS = frozenset({"T", "mT", "data", "real", "imag"})
# Attribute uses that show a name holds a tensor (for the host arithmetic check).
TENSOR_EVIDENCE_ATTRS = (TENSOR_GLUE_ATTRS - {
    "values", "indices", "index", "real", "imag", "__getitem__", "__len__", "__iter__",
    "__init__", "__new__", "__repr__", "__str__", "__format__", "__hash__", "__sizeof__",
    "__doc__", "__module__", "__weakref__", "__dir__", "__annotations__", "size", "data",
    "grad"}) | {"shape"}
STREAM_METHODS = frozenset({"record_stream", "wait_stream", "wait_event", "record_event",
                            "elapsed_time", "synchronize", "replay", "capture_begin",
                            "capture_end"})
QUANT_METHODS = frozenset({"int_repr", "dequantize", "q_scale", "q_zero_point", "qscheme",
                           "q_per_channel_scales", "q_per_channel_zero_points",
                           "q_per_channel_axis"})
SUBCLASS_METHODS = frozenset({"as_subclass", "__torch_function__", "__torch_dispatch__",
                              "_make_subclass", "_make_wrapper_subclass"})
# Container methods that mutate in place (module-level caches).
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "popitem", "remove", "clear",
                              "update", "setdefault", "add", "discard", "appendleft",
                              "extendleft", "popleft", "sort", "reverse", "__setitem__",
                              "__delitem__", "__setattr__", "put", "rotate"})
CONTAINER_FACTORIES = frozenset({
    "builtins.dict", "builtins.list", "builtins.set", "builtins.bytearray",
    "collections.defaultdict", "collections.OrderedDict", "collections.deque",
    "collections.Counter", "collections.ChainMap"})
MEMOIZERS = frozenset({"functools.cache", "functools.lru_cache", "functools.cached_property"})
PASSTHROUGH_CALLS = frozenset({"functools.partial", "functools.cache", "functools.lru_cache",
                               "functools.wraps", "functools.update_wrapper",
                               "builtins.staticmethod", "builtins.classmethod",
                               "builtins.property", "torch.library.wrap_triton",
                               "torch._library.triton.wrap_triton"})

# Dunder and frame attributes that expose the interpreter's insides.
BANNED_ATTRS = frozenset({
    "__code__", "__globals__", "__dict__", "__builtins__", "__class__", "__subclasses__",
    "__bases__", "__base__", "__mro__", "__closure__", "__func__", "__self__",
    "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__defaults__",
    "__kwdefaults__", "__wrapped__", "__loader__", "__spec__", "__import__", "__traceback__",
    "__reduce__", "__reduce_ex__", "__subclasshook__", "__init_subclass__", "__set_name__",
    "__objclass__", "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "f_back",
    "f_globals", "f_locals", "f_builtins", "f_code", "tb_frame", "tb_next", "co_code",
    "co_consts", "co_names"})
BANNED_NAMES = {"__builtins__": R.INTROSPECTION, "__loader__": R.INTROSPECTION,
                "__spec__": R.INTROSPECTION, "__file__": R.IO_ENVIRONMENT,
                "__cached__": R.IO_ENVIRONMENT}
# Builtins that name a computed attribute: literal names are fine, anything else is S131.
ATTR_BUILTINS = frozenset({"builtins.getattr", "builtins.setattr", "builtins.delattr",
                           "builtins.hasattr"})
# Builtins that compute on a tensor argument (abs(x), sum(x), float(x) ...).
TENSOR_BUILTINS = frozenset({"abs", "sum", "max", "min", "pow", "round", "divmod", "float",
                             "int", "bool", "complex", "sorted", "any", "all"})

# --- the table: prefix -> rule, first match wins -----------------------------------------------

_QUANT_MARKERS = ("quant", "_int_mm", "_scaled_mm", "int8pack", "int4pack", "fbgemm", "q_scale",
                  "q_zero_point", "q_per_channel", "int_repr", "torch.ao.")

_TABLE: tuple[tuple[tuple[str, ...], Rule], ...] = (
    (("torch.Tensor._make_subclass", "torch.Tensor._make_wrapper_subclass",
      "torch.Tensor.as_subclass", "torch.Tensor.__torch_function__",
      "torch.Tensor.__torch_dispatch__", "torch._C._disabled_torch_function_impl",
      "torch.overrides", "torch.utils._python_dispatch", "torch._C._TensorMeta",
      "torch._C.TensorBase", "torch._C._TensorBase", "torch._C.DisableTorchFunction",
      "torch._C._DisableTorchDispatch", "torch._subclasses", "torch.masked"), R.TENSOR_SUBCLASS),
    (("torch.cuda.Stream", "torch.cuda.ExternalStream", "torch.cuda.Event", "torch.cuda.stream",
      "torch.cuda.StreamContext", "torch.cuda.current_stream", "torch.cuda.default_stream",
      "torch.cuda.set_stream", "torch.cuda.synchronize", "torch.cuda.graph",
      "torch.cuda.graphs", "torch.cuda.CUDAGraph", "torch.cuda.make_graphed_callables",
      "torch.cuda.graph_pool_handle", "torch.cuda.streams", "torch.cuda._sleep",
      "torch.cuda.is_current_stream_capturing", "torch.cuda.set_sync_debug_mode",
      "torch.Stream", "torch.Event", "torch.accelerator", "torch.cpu.Stream",
      "torch.cpu.synchronize", "torch.cpu.current_stream", "torch.cpu.stream", "torch.xpu",
      "torch.mps", "triton.runtime.driver.active.get_current_stream"),
     R.STREAMS_EVENTS_GRAPHS),
    (("torch.compile", "torch.jit", "torch._dynamo", "torch._inductor", "torch.fx",
      "torch.export", "torch._export", "torch._higher_order_ops", "torch.onnx",
      "torch._functorch", "torch._lazy", "torch._prims", "torch._refs", "torch._decomp"),
     R.TORCH_COMPILER),
    (("threading", "_thread", "multiprocessing", "concurrent", "asyncio", "signal",
      "subprocess", "sched", "queue", "selectors", "_posixsubprocess", "pty", "atexit",
      "torch.multiprocessing", "torch.distributed", "os.fork", "os.forkpty", "os.system",
      "os.popen", "os.kill", "os.killpg", "os.register_at_fork", "os.nice", "os.setpgid",
      "os.setsid", "os._exit"),
     R.CONCURRENCY),
    (("builtins.exec", "builtins.eval", "builtins.compile", "builtins.__import__", "importlib",
      "imp", "runpy", "marshal", "pickle", "_pickle", "cPickle", "dill", "cloudpickle",
      "shelve", "code", "codeop", "zipimport", "pkgutil", "types.FunctionType",
      "types.CodeType", "types.LambdaType", "types.ModuleType", "types.MethodType",
      "types.new_class", "torch.load", "torch.package", "torch.hub.load", "torch.utils.model_zoo",
      "torch.ops.import_module", "torch.serialization", "numpy.load"), R.DYNAMIC_CODE),
    (("builtins.globals", "builtins.locals", "builtins.vars", "builtins.getattr",
      "builtins.setattr", "builtins.delattr", "inspect", "gc", "sys._getframe",
      "sys._current_frames", "sys.settrace", "sys.setprofile", "sys.gettrace", "sys.getprofile",
      "sys.modules", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache",
      "sys.addaudithook", "sys.monitoring", "traceback", "dis", "operator.attrgetter",
      "operator.methodcaller", "weakref", "_weakref"), R.INTROSPECTION),
    (("ctypes", "_ctypes", "cffi", "torch.utils.cpp_extension", "torch.cuda.jiterator",
      "torch._C", "torch.ops.load_library", "torch.classes", "torch.cuda.cudart", "cuda",
      "cupy", "pycuda", "numba", "triton._C", "mmap", "_testcapi", "torch._ops"),
     R.NATIVE_CODE),
    (("torch.library", "torch._library", "unittest.mock", "mock"), R.MONKEYPATCH),
    (("builtins.open", "builtins.input", "builtins.breakpoint", "builtins.exit", "builtins.quit",
      "os", "posix", "nt", "posixpath", "ntpath", "pathlib", "shutil", "tempfile", "io",
      "socket", "ssl", "http", "urllib", "urllib3", "requests", "httpx", "aiohttp", "ftplib",
      "smtplib", "telnetlib", "xmlrpc", "glob", "fcntl", "termios", "select", "resource",
      "platform", "getpass", "pwd", "grp", "webbrowser", "sys.argv", "sys.orig_argv",
      "sys.stdin", "sys.stdout", "sys.stderr", "sys.__stdin__", "sys.__stdout__",
      "sys.__stderr__", "sys.path", "sys.exit", "sys.executable", "sys.setrecursionlimit",
      "sys.setswitchinterval", "time", "datetime", "logging", "uuid", "zipfile", "tarfile",
      "gzip", "bz2", "lzma", "sqlite3", "dbm", "torch.save", "torch.from_file", "torch.hub",
      "torch.utils.tensorboard", "torch.cuda.memory._dump_snapshot",
      "torch.cuda.memory._record_memory_history"), R.IO_ENVIRONMENT),
    (("triton.testing", "triton.compiler", "triton.compile", "triton.runtime", "triton.knobs",
      "triton.backends", "triton.experimental", "triton.profiler", "triton.tools",
      "triton.instrumentation"), R.TRITON_INTERNALS),
)


# Longest matching prefix wins: os.fork (S121) before os (S170), torch._C._TensorMeta (S160)
# before torch._C (S132), triton.runtime.driver.active.get_current_stream (S120) before
# triton.runtime (S133).
_BY_PREFIX: dict[str, Rule] = {}
for _prefixes, _rule in _TABLE:
    for _prefix in _prefixes:
        _BY_PREFIX.setdefault(_prefix, _rule)
# os.spawnv, os.execve, os.waitpid, os.posix_spawnp, os.sched_setaffinity: families, not modules.
_OS_FAMILIES = ("spawn", "exec", "posix_spawn", "wait", "sched_")


def _table_rule(qname: str) -> Rule | None:
    parts = qname.split(".")
    for end in range(len(parts), 0, -1):
        rule = _BY_PREFIX.get(".".join(parts[:end]))
        if rule is not None:
            return rule
    return None


def is_quantization_api(qname: str) -> bool:
    return qname.startswith("torch") and any(m in qname for m in _QUANT_MARKERS)


# Modules re-exported as attributes of allowed ones (`dataclasses.sys`, `enum.bltns`,
# `triton.language.core.builtins`, `tl.core.knobs`, `torch.os`): reaching a module through
# another module's namespace is judged as the module reached. Names are what the modules bind.
_REEXPORTED = {
    "sys": "sys", "_sys": "sys", "os": "os", "builtins": "builtins", "bltns": "builtins",
    "inspect": "inspect", "types": "types", "_thread": "_thread", "threading": "threading",
    "importlib": "importlib", "pkgutil": "pkgutil", "gc": "gc", "ctypes": "ctypes",
    "subprocess": "subprocess", "signal": "signal", "socket": "socket", "pickle": "pickle",
    "marshal": "marshal", "io": "io", "time": "time", "shutil": "shutil", "pathlib": "pathlib",
    "traceback": "traceback", "weakref": "weakref", "operator": "operator", "copy": "copy",
    "warnings": "warnings", "contextlib": "contextlib", "module": "importlib",
    "torch": "torch", "np": "numpy", "numpy": "numpy", "ir": "triton._C", "_C": "triton._C",
    "knobs": "triton.knobs", "runtime": "triton.runtime", "compiler": "triton.compiler",
    "testing": "triton.testing"}
# Namespaces that hold functions and classes only: a re-exported module in them is a way out.
_PLAIN_NAMESPACES = ("triton.language.", "math.", "typing.", "typing_extensions.", "functools.",
                     "dataclasses.", "itertools.", "collections.", "enum.")


def _through_reexport(qname: str, category: str | None) -> Rule | None:
    parts = qname.split(".")
    plain = qname.startswith(_PLAIN_NAMESPACES)
    for i in range(1, len(parts)):
        target = _REEXPORTED.get(parts[i])
        if target is None or ".".join(parts[:i + 1]) == target:
            continue  # triton.runtime is triton.runtime, not a re-export
        rule = classify(".".join([target] + parts[i + 1:]), category)
        if rule is not None:
            return rule
        if plain:
            return R.INTROSPECTION
    if plain and any(p.startswith("_") and not p.startswith("__") for p in parts[1:]) and \
            not qname.startswith("triton.language."):
        return R.INTROSPECTION  # collections._sys, dataclasses._thread ...
    return None


def classify(qname: str, category: str | None) -> Rule | None:
    """The rule a reference to `qname` breaks, or None when it is allowed."""
    if "." in qname:
        rule = _through_reexport(qname, category)
        if rule is not None:
            return rule
    is_torch = qname == "torch" or qname.startswith("torch.")
    if is_torch and category == "Quantization" and is_quantization_api(qname):
        return R.QUANTIZATION_API
    if qname.startswith("os.") and qname[3:].startswith(_OS_FAMILIES):
        return R.CONCURRENCY
    if qname in TORCH_GLUE:
        return None  # named exceptions inside a banned family (torch.library.triton_op)
    rule = _table_rule(qname)
    if rule is R.TRITON_INTERNALS and triton_allowed(qname):
        return None
    if rule is not None:
        return rule
    if is_torch:
        return None if torch_allowed(qname) else R.TORCH_COMPUTE
    if qname == "triton" or qname.startswith("triton."):
        return None if triton_allowed(qname) else R.TRITON_INTERNALS
    return None


def torch_allowed(qname: str) -> bool:
    if qname in TORCH_GLUE or qname == "torch" or qname.startswith(TORCH_GLUE_PREFIXES):
        return True
    if qname.startswith("torch.Tensor."):
        attr = qname[len("torch.Tensor."):]
        return "." not in attr and attr in TENSOR_GLUE_ATTRS
    return False


def triton_allowed(qname: str) -> bool:
    return qname in TRITON_ALLOWED or qname.startswith(TRITON_ALLOWED_PREFIXES) or \
        qname == "triton.language"


ALLOWED_MODULE_IMPORTS = frozenset({"torch.library"})


def classify_import(module: str) -> Rule | None:
    """The rule an import of `module` (dotted) breaks, or None when it may be imported."""
    top = module.split(".", 1)[0]
    if top == "builtins":  # the module behind every builtin: only reason to import it is to patch
        return R.INTROSPECTION
    if module in ALLOWED_MODULE_IMPORTS:
        return None  # only some of its names are allowed: their uses are judged one by one
    if top in ("torch", "triton"):
        rule = classify(module, None)
        # Importing a torch submodule is fine (its uses are judged); dangerous ones are not.
        if rule is R.TORCH_COMPUTE:
            return None
        return rule
    if top in IMPORT_ALLOWLIST:
        return None
    return classify(module, None) or R.IMPORT_NOT_ALLOWED


def classify_attr(attr: str, category: str | None) -> Rule | None:
    """The rule an attribute `attr` breaks when its receiver may be a tensor (host code)."""
    if attr in BANNED_ATTRS:
        return R.INTROSPECTION
    if attr in STREAM_METHODS:
        return R.STREAMS_EVENTS_GRAPHS
    if attr in SUBCLASS_METHODS:
        return R.TENSOR_SUBCLASS
    if category == "Quantization" and attr in QUANT_METHODS:
        return R.QUANTIZATION_API
    if attr in TENSOR_ATTRIBUTES and attr not in TENSOR_GLUE_ATTRS:
        return R.TENSOR_COMPUTE
    return None
