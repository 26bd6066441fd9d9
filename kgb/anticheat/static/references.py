"""Every name the file refers to, after alias resolution, judged by the policy table: PyTorch
compute and compilers (S110, S113), quantization APIs (S115), task forbids (S114), streams
(S120), concurrency (S121), dynamic code (S130), introspection (S131), native code (S132),
Triton internals (S133), torch.library overrides (S140), subclass machinery (S160) and the
outside world (S170). Also tensor methods on the host (S111) and computed attribute names."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.collect import dotted
from kgb.anticheat.static.context import Analysis, Hit, short
from kgb.anticheat.static.devices import is_device_move
from kgb.anticheat.static.policy import (
    ATTR_BUILTINS,
    BANNED_ATTRS,
    BANNED_NAMES,
    CONTAINER_FACTORIES,
    CUSTOM_OP_DEFINERS,
    KERNEL_PYTHON_ATTRS,
    MODULE_ATTRS,
    NON_TENSOR_ATTRS,
    PARAMETER_FILL_METHODS,
    PYTORCH_OP_NAMESPACES,
    TENSOR_BUILTINS,
    TORCH_ALLOCATORS,
    TORCH_VIEWS,
    builds_parameters,
    classify,
    classify_attr,
    torch_allowed,
)
from kgb.anticheat.static.resolve import fold_string, keyword, positional

NOUNS = {
    R.TORCH_COMPUTE.id: "PyTorch compute", R.TORCH_COMPILER.id: "a PyTorch compiler",
    R.QUANTIZATION_API.id: "a PyTorch quantization API", R.STREAMS_EVENTS_GRAPHS.id:
    "stream/event/graph machinery", R.CONCURRENCY.id: "threads/processes/async machinery",
    R.DYNAMIC_CODE.id: "dynamic code execution", R.INTROSPECTION.id: "interpreter introspection",
    R.NATIVE_CODE.id: "native code loading", R.TRITON_INTERNALS.id: "a Triton internal",
    R.MONKEYPATCH.id: "an override registry", R.TENSOR_SUBCLASS.id:
    "tensor subclass machinery", R.IO_ENVIRONMENT.id: "file/network/environment/clock access",
    R.TENSOR_COMPUTE.id: "tensor compute",
}


def check(a: Analysis) -> list[Hit]:
    hits: list[Hit] = []
    attr_bases = {id(r.node.value) for r in a.model.attrs}
    calls_of = {id(c.node.func): c.node for c in a.model.calls}
    call_funcs = set(calls_of)

    for ref in a.model.names:
        node = ref.node
        if node.value in BANNED_NAMES:
            rule = BANNED_NAMES[node.value]
            hits.append(Hit(rule, node, f"`{node.value}` exposes {NOUNS[rule.id]}"))
        if id(node) in attr_bases:
            continue  # judged as part of the dotted name it starts
        for v in a.resolve.name(node.value, ref.site.scope):
            if v[0] == "q":
                _judge(a, hits, v[1], node, node.value, id(node) in call_funcs, ref.site)

    for attr_ref in a.model.attrs:
        anode, site = attr_ref.node, attr_ref.site
        attr = anode.attr.value
        if attr in BANNED_ATTRS:
            hits.append(Hit(R.INTROSPECTION, anode,
                            f"`.{attr}` reaches into the interpreter's internals"))
            continue
        base = a.resolve.expr(anode.value, site.scope)
        if any(v[0] == "q" for v in base):
            if attr_ref.leaf:
                spelled = dotted(anode) or a.model.module.code_for_node(anode)
                for v in a.resolve.expr(anode, site.scope):
                    if v[0] == "q":
                        _judge(a, hits, v[1], anode, spelled, id(anode) in call_funcs, site)
            if all(v[0] == "q" for v in base):
                continue  # surely a module path; a parameter defaulting to a module is not
        _judge_attr(a, hits, anode, attr, anode.value, site, calls_of.get(id(anode)))

    for call in a.model.calls:
        _judge_call(a, hits, call.node, call.site)
    for marker in a.model.markers:
        if marker.what in ("async", "await"):
            hits.append(Hit(R.CONCURRENCY, marker.node,
                            f"`{marker.what}` code runs work outside the entry call"))
        elif marker.what == "rebinds-name":
            hits.append(Hit(R.INTROSPECTION, marker.node,
                            "the file rebinds __name__, so its `if __name__ == \"__main__\":` "
                            "block would run on import"))
        elif marker.what == "module-getattr":
            hits.append(Hit(R.INTROSPECTION, marker.node,
                            "a module-level __getattr__/__dir__ intercepts lookups of the "
                            "module's names"))
    return hits


def forbidden_by_task(a: Analysis, qname: str | None, attr: str | None) -> str | None:
    """The task.toml `forbid` entry that matches a qualified name or a method name."""
    for entry in a.forbid:
        spec = entry.strip()
        if spec.startswith("tl."):
            spec = "triton.language." + spec[3:]
        elif spec.startswith("F."):
            spec = "torch.nn.functional." + spec[2:]
        if spec.startswith(".") or spec.startswith("Tensor."):
            method = spec.split(".")[-1]
            if attr == method or (qname and qname == f"torch.Tensor.{method}"):
                return entry
        elif "." not in spec:
            if attr == spec or (qname and qname.rsplit(".", 1)[-1] == spec):
                return entry
        elif qname and (qname == spec or qname.startswith(spec + ".")):
            return entry
    return None


def _judge(a: Analysis, hits: list[Hit], qname: str, node: cst.CSTNode, spelled: str,
           is_call: bool, site) -> None:
    alias = "" if spelled == qname else f" (as `{spelled}`)"
    entry = forbidden_by_task(a, qname, None)
    if entry is not None:
        hits.append(Hit(R.TASK_FORBIDDEN, node,
                        f"{qname}{alias} is forbidden by this task (forbid: {entry!r})"))
    if qname in ATTR_BUILTINS:
        if not is_call:  # `g = getattr` hides every later attribute name
            hits.append(Hit(R.INTROSPECTION, node, f"{qname}{alias} used as a value"))
        return
    rule = classify(qname, a.category)
    if rule is R.TORCH_COMPUTE and builds_parameters(qname) and a.in_constructor(site.owner):
        return  # a module's __init__ making its parameters (policy.builds_parameters)
    if rule is not None:
        where = " inside a @triton.jit body" if a.in_kernel(site.owner) else ""
        hits.append(Hit(rule, node, f"{qname}{alias} is {NOUNS[rule.id]}{where}"))


def _maybe_tensor(a: Analysis, receiver: cst.CSTNode, attr: str, site) -> bool:
    """Could `receiver` be a tensor? Modules, classes and instances of this file, containers,
    literals, results of non-tensor glue (torch.finfo, triton.Config ...) and attributes that
    are never tensors (`x.device`, `x.dtype`) cannot."""
    if isinstance(receiver, cst.Attribute) and receiver.attr.value in NON_TENSOR_ATTRS:
        return False
    if a.compiled_kernel_param(receiver, site.owner):
        return False
    klass = a.self_class(receiver, site.owner)
    if klass is not None and attr in a.members.get(klass, ()):
        return False
    for v in a.resolve.expr(receiver, site.scope):
        kind = v[0]
        if kind in ("u", "p", "r"):
            return True
        if kind == "o":
            q = v[1]
            if q in TORCH_ALLOCATORS or q in TORCH_VIEWS or (
                    q.startswith("torch.") and not torch_allowed(q)) or (
                    q.startswith("builtins.") and q[len("builtins."):] in TENSOR_BUILTINS) or \
                    q == "builtins.type":  # type(x).softmax(x): the class of a tensor
                return True
    return False


def _unknown_object(a: Analysis, receiver: cst.CSTNode, attr: str, site) -> bool:
    """Could `receiver` be any object at all (a parameter, a call's result, an unknown)?"""
    klass = a.self_class(receiver, site.owner)
    if klass is not None and attr in a.members.get(klass, ()):
        return False
    return any(v[0] in ("u", "p", "r") or (v[0] == "o" and v[1] not in CONTAINER_FACTORIES)
               for v in a.resolve.expr(receiver, site.scope))


def _judge_attr(a: Analysis, hits: list[Hit], node: cst.CSTNode, attr: str,
                receiver: cst.CSTNode, site, call: cst.Call | None = None) -> None:
    if a.in_kernel(site.owner):
        return  # Triton tensors have their own methods (x.to(), x.sum() ...): kernel language
    spelled = short(a.model.module.code_for_node(receiver), 40)
    if attr in MODULE_ATTRS and _unknown_object(a, receiver, attr, site):
        hits.append(Hit(R.INTROSPECTION, node, f"`{spelled}.{attr}` may reach the {attr} module "
                                               f"through an object of unknown origin"))
    if attr in KERNEL_PYTHON_ATTRS and (_unknown_object(a, receiver, attr, site) or any(
            v[0] == "f" and v[1] in a.jit for v in a.resolve.expr(receiver, site.scope))):
        hits.append(Hit(R.KERNEL_AS_PYTHON, node,
                        f"`{spelled}.{attr}` is a kernel's body as plain Python: run on the "
                        f"host it computes with PyTorch, not Triton"))
    entry = forbidden_by_task(a, None, attr)
    if entry is not None and _maybe_tensor(a, receiver, attr, site):
        hits.append(Hit(R.TASK_FORBIDDEN, node,
                        f"`.{attr}` is forbidden by this task (forbid: {entry!r})"))
    rule = classify_attr(attr, a.category)
    if attr in PARAMETER_FILL_METHODS and a.in_constructor(site.owner):
        return  # `self.weight.data.uniform_(-b, b)` in __init__: initialising a parameter
    if is_device_move(a, attr, call, site):
        return  # x.cuda(), x.to("cuda"): a move to the device, not a cast (devices.py)
    if rule is not None and _maybe_tensor(a, receiver, attr, site):
        hits.append(Hit(rule, node, f"`{spelled}.{attr}` is {NOUNS[rule.id]} on the host"))


def _judge_call(a: Analysis, hits: list[Hit], call: cst.Call, site) -> None:
    if not a.in_kernel(site.owner) and not isinstance(call.func, cst.Subscript):
        kernels = {v[1] for v in a.resolve.expr(call.func, site.scope) if v[0] == "f"} & a.jit
        if kernels:
            name = a.model.funcs[min(kernels)].name
            hits.append(Hit(R.KERNEL_AS_PYTHON, call,
                            f"`{name}(...)` calls a @triton.jit function without [grid]: its "
                            f"body runs as plain Python on host tensors"))
    qnames = a.resolve.qnames(call.func, site.scope)
    if qnames & ATTR_BUILTINS:
        which = sorted(qnames & ATTR_BUILTINS)[0][len("builtins."):]
        name_node = positional(call, 1)
        folded = fold_string(name_node)
        if folded is None:
            hits.append(Hit(R.INTROSPECTION, call,
                            f"{which}() with a computed attribute name hides what is accessed"))
            return
        name, built = folded
        if built:
            hits.append(Hit(R.INTROSPECTION, call,
                            f"{which}() with an attribute name built from pieces ({name!r})"))
        if which in ("getattr", "hasattr"):
            target = positional(call, 0)
            if target is None:
                return
            if name in BANNED_ATTRS:
                hits.append(Hit(R.INTROSPECTION, call,
                                f"{which}(..., {name!r}) reaches into the interpreter"))
            base = a.resolve.expr(target, site.scope)
            for v in base:
                if v[0] == "q":
                    _judge(a, hits, f"{v[1]}.{name}", call, f"{which}(..., {name!r})", True,
                           site)
            if not any(v[0] == "q" for v in base):
                _judge_attr(a, hits, call, name, target, site)
    if qnames & CUSTOM_OP_DEFINERS:
        folded = fold_string(positional(call, 0) or keyword(call, "name"))
        if folded is not None and folded[0].split("::")[0] in PYTORCH_OP_NAMESPACES:
            hits.append(Hit(R.MONKEYPATCH, call,
                            f"a custom op named {short(folded[0], 40)!r} joins PyTorch's own "
                            f"namespace, where an op's name is trusted to say what it does"))
    if "builtins.type" in qnames and len([x for x in call.args if x.keyword is None]) == 3:
        hits.append(Hit(R.DYNAMIC_CODE, call, "type() with three arguments creates a class at "
                                              "run time"))
