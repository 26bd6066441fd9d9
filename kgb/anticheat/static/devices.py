"""Device moves that are glue, not casts (issue 28): `x.cuda()`, `x.to("cuda")`,
`x.to(device=y.device)`, as generators write KernelBench answers.

A move to the device the inputs are already on returns the tensor itself (no data is copied on
a GPU run; on a CPU run the worker's CUDA disguise makes CUDA mean the CPU), so it computes
nothing. `.to(...)` also casts, and a cast is compute (S111): the call counts as a move only
when every argument is shown to name a device — a "cuda"/"cuda:N" literal or an int index, a
`torch.device(...)`, some object's `.device`, or a name bound only to those — and no dtype,
`copy=` or `memory_format=` is passed. Anything else stays S111. Where a `.device` attribute
turns out not to hold a device (a class of the file setting `device = torch.float16`), the cast
still dispatches `_to_copy(dtype=...)`, which layer 2's dispatch trace rejects (D206)."""

from __future__ import annotations

import re

import libcst as cst

from kgb.anticheat.static.context import Analysis
from kgb.anticheat.static.model import Site
from kgb.anticheat.static.policy import DEVICE_MOVE_KEYWORDS, DEVICE_MOVE_METHODS
from kgb.anticheat.static.resolve import fold_string

_CUDA = re.compile(r"cuda(:\d+)?")
_DEVICE_VALUES = frozenset({("o", "torch.device"), ("s",)})


def is_device_move(a: Analysis, attr: str, call: cst.Call | None, site: Site) -> bool:
    """`call` (whose function is the attribute `attr`) only moves a tensor to a device."""
    if call is None or attr not in DEVICE_MOVE_METHODS:
        return False
    positional = [arg for arg in call.args if arg.keyword is None]
    if any(arg.star for arg in call.args) or len(positional) > 1:
        return False  # x.to(device, dtype), x.to(*args): a cast may be among them
    if any(arg.keyword.value not in DEVICE_MOVE_KEYWORDS for arg in call.args
           if arg.keyword is not None):
        return False
    device = [arg.value for arg in call.args if arg.keyword is None or
              arg.keyword.value == "device"]
    if attr == "to" and not device:
        return False  # x.to(non_blocking=True) alone is not a call anyone writes
    return all(_names_device(a, node, site, 0) for node in device)


def _names_device(a: Analysis, node: cst.BaseExpression, site: Site, depth: int) -> bool:
    if isinstance(node, cst.Integer):
        return True  # a CUDA device index
    folded = fold_string(node)
    if folded is not None:
        return _CUDA.fullmatch(folded[0]) is not None
    if isinstance(node, cst.Call):
        return "torch.device" in a.resolve.qnames(node.func, site.scope) and all(
            _names_device(a, arg.value, site, depth) for arg in node.args if arg.keyword is None)
    values = a.resolve.expr(node, site.scope)
    if not values or any(v not in _DEVICE_VALUES and v[0] not in ("u", "p", "r")
                         for v in values):
        return False  # torch.float16, a class of the file, a container ...
    if all(v in _DEVICE_VALUES for v in values):
        return True  # DEVICE = torch.device("cuda"), dev = "cuda"
    if not isinstance(node, cst.Attribute):
        return False  # a parameter or a call's result may be a dtype or a tensor
    klass = a.self_class(node.value, site.owner)
    stored = [s for s in a.model.stores if klass is not None and s.kind == "attr" and
              isinstance(s.base, cst.Name) and s.site.owner is not None and
              a.model.funcs[s.site.owner].class_id == klass and
              a.self_class(s.base, s.site.owner) == klass and
              cst.ensure_type(s.node, cst.Attribute).attr.value == node.attr.value]
    if stored:  # self.device = torch.device("cuda") in __init__: judged by what was stored
        return depth < 4 and all(s.value is not None and _names_device(a, s.value, s.site,
                                                                       depth + 1)
                                 for s in stored)
    return node.attr.value == "device"  # x.device of a tensor (or an nn.Module's parameter)
