"""S134: a host object passed to a kernel as `tl.constexpr` (threat 34), where the file shows
it. A constexpr is a compile-time value (int, float, bool, str, None, a dtype, a jit function,
a tuple of those); a tensor, a module, a Python function, a class or instance of the file, a
list or dict handed over as one reaches an interpreted kernel body unchanged (so it can run
PyTorch or anything else there), and compiled Triton evaluates it in its code generator. Values
the file computes on the host (`x.dtype`-derived, `triton.next_power_of_2(n)`, `K % 32 == 0`)
are fine; whatever this check cannot see, the worker's screen of every launch refuses
(kgb.worker.launch_args, D207)."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.context import Analysis, Hit, short
from kgb.anticheat.static.policy import _DTYPES, TL
from kgb.anticheat.static.tensors import TensorFacts

# Submodules a `from X import Y` may bind (a plain `import X.Y` is a module anyway).
_MODULES = frozenset({
    "torch.nn", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special",
    "torch.ops", "torch.cuda", "torch.library", "torch.autograd", "torch.utils", "torch.func",
    "torch.backends", "torch.testing", "torch.distributed", "torch.sparse", "torch.nested",
    "torch.random", "torch.fx", "torch.jit", "torch.compiler", "torch._C", "os.path",
    "triton.language", "triton.language.extra", "triton.language.extra.libdevice",
    "triton.language.extra.cuda", "triton.language.math", "triton.runtime", "triton.compiler",
    "triton.testing", "triton.tools", "collections.abc"})
_TORCH_DTYPES = frozenset(f"torch.{d}" for d in _DTYPES)


def check(a: Analysis, tensors: TensorFacts) -> list[Hit]:
    hits: list[Hit] = []
    code = a.model.module.code_for_node
    for launch in a.model.launches:
        site = launch.site
        if site.dead or a.in_kernel(site.owner):
            continue
        for kid in sorted(a.resolve.funcs(launch.target, site.scope) & a.jit):
            kernel = a.model.funcs[kid]
            for name, arg in _constexpr_args(kernel.node, launch.node):
                what = _host_object(a, tensors, arg, site.owner, site.scope)
                if what:
                    hits.append(Hit(R.HOST_OBJECT_CONSTEXPR, arg,
                                    f"`{short(code(arg))}` ({what}) is passed as constexpr "
                                    f"{name} of kernel {kernel.name}: a compiled kernel takes "
                                    f"only compile-time values there"))
            for name, default in _constexpr_defaults(kernel.node):
                what = _host_object(a, tensors, default, None, kernel.outer)
                if what:
                    hits.append(Hit(R.HOST_OBJECT_CONSTEXPR, default,
                                    f"the default of constexpr {name} of kernel {kernel.name} "
                                    f"is `{short(code(default))}` ({what})"))
    return list({id(h.node): h for h in hits}.values())  # one kernel launched twice: once


def _constexpr_params(node: cst.FunctionDef | cst.Lambda) -> list[tuple[cst.Param, bool]]:
    if not isinstance(node, cst.FunctionDef):
        return []
    module = cst.Module([])
    params = list(node.params.posonly_params) + list(node.params.params) + \
        list(node.params.kwonly_params)
    return [(p, p.annotation is not None and
             "constexpr" in module.code_for_node(p.annotation.annotation)) for p in params]


def _constexpr_args(node: cst.FunctionDef | cst.Lambda,
                    call: cst.Call) -> list[tuple[str, cst.BaseExpression]]:
    """(parameter, argument) for each constexpr parameter the launch passes explicitly."""
    params = _constexpr_params(node)
    if isinstance(node, cst.FunctionDef):
        positional_names = [p.name.value for p in list(node.params.posonly_params) +
                            list(node.params.params)]
    else:
        positional_names = []
    constexpr = {p.name.value for p, is_constexpr in params if is_constexpr}
    found = []
    for index, arg in enumerate(call.args):
        if arg.star:  # *args / **kwargs: the worker's screen sees them
            break
        if arg.keyword is not None:
            name = arg.keyword.value
        elif index < len(positional_names):
            name = positional_names[index]
        else:
            continue
        if name in constexpr:
            found.append((name, arg.value))
    return found


def _constexpr_defaults(node: cst.FunctionDef | cst.Lambda) -> list[tuple[str, cst.BaseExpression]]:
    return [(p.name.value, p.default) for p, is_constexpr in _constexpr_params(node)
            if is_constexpr and p.default is not None]


def _host_object(a: Analysis, tensors: TensorFacts, node: cst.BaseExpression,
                 owner: int | None, scope: int, depth: int = 0) -> str | None:
    """What visibly makes `node` a host object, or None (a value, or not known here)."""
    if depth > 8:
        return None
    if isinstance(node, cst.Tuple):
        return next((w for w in (_host_object(a, tensors, e.value, owner, scope, depth + 1)
                                 for e in node.elements) if w), None)
    identity = isinstance(node, cst.Comparison) and all(
        isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons)
    if identity:  # `b is not None`: a bool, whatever b is
        return None
    if owner is not None and tensors.is_tensor(node, owner, scope):
        return "a tensor"
    for value in sorted(a.resolve.expr(node, scope), key=repr):
        kind = value[0]
        if kind == "q":
            what = _imported(a, value[1])
            if what:
                return what
        elif kind == "f" and value[1] not in a.jit:
            return "a Python function, not a @triton.jit one"
        elif kind == "c":
            return "a class"
        elif kind == "i":
            return "an object of a class of this file"
        elif kind == "k":
            container = value[1]
            if isinstance(container, cst.Tuple):
                what = _host_object(a, tensors, container, owner, value[2], depth + 1)
                if what:
                    return what
            else:
                return "a list, dict, set or comprehension"
    return None


def _imported(a: Analysis, qname: str) -> str | None:
    if "." not in qname or qname in _MODULES or qname in _plain_imports(a):
        return f"the module {qname}"
    if qname.startswith("builtins."):
        return f"the Python builtin {qname.split('.', 1)[1]}"
    if qname.startswith("torch.") and qname not in _TORCH_DTYPES:
        return f"{qname}, a PyTorch object"
    if qname.startswith(("os.", "sys.", "subprocess.", "numpy.")) and not qname.startswith(TL):
        return f"{qname}, a host function or object"
    return None


def _plain_imports(a: Analysis) -> frozenset[str]:
    """Modules bound by `import X.Y [as Z]` statements."""
    return frozenset(i.module for i in a.model.imports if i.member is None and not i.relative)
