"""Seeing through torch.library custom ops (threat 33).

A TorchDispatchMode sees a call of a custom op (`torch.library.custom_op`, `triton_op`,
`Library.define` + `impl`) as one op, `mylib::relu_fwd`, and when it lets the op run, the op's
implementation runs with the mode suspended: its PyTorch compute is invisible and its
uninitialized allocations are never poisoned. The dispatch trace runs such an op's
implementation again under the mode instead (`DispatchTrace`), so that what it does is judged
like any host code and its name decides nothing. An op whose kernel is native code (C++) has
no inside the mode can see: it counts as PyTorch computing."""

from __future__ import annotations

import re
from typing import Any

# Namespaces of PyTorch's own operators: their names say what they compute (GLUE_OPS).
PYTORCH_NAMESPACES = frozenset({"aten", "prims"})

# The dispatcher's note on a kernel that torch.library registered from Python names the
# Python file and line that made the Library (`x.py:12`, or `<string>:3` for code run through
# exec); a kernel compiled into a library names its C++ source or says `registered by ...`.
_PYTHON_REGISTRATION = re.compile(r"registered at (.+\.py|<[^<>]*>):\d+\W*$")


def is_pytorch_op(func: Any) -> bool:
    return getattr(func, "namespace", None) in PYTORCH_NAMESPACES


def below_python(func: Any, args: tuple, kwargs: dict) -> Any:
    """The dispatch keys a call of `func` reaches below the Python key (where the mode was
    called): the dispatcher's own extraction (thread-local include and exclude sets, every
    tensor argument's keys), less a fallthrough BackendSelect (an op without tensor arguments
    otherwise lands on it)."""
    import torch

    C: Any = torch._C
    keys = C._dispatch_tls_local_include_set()
    for tensor in _tensors((*args, *kwargs.values())):
        keys = keys | C._dispatch_keys(tensor)
    keys = (keys - C._dispatch_tls_local_exclude_set()) & \
        C._dispatch_keyset_full_after(C.DispatchKey.Python)
    select = C.DispatchKey.BackendSelect
    if keys.has(select) and not _real_kernel(func.name(), select):
        keys = keys.remove(select)
    return keys


def _tensors(values: tuple | list) -> list:
    """The tensors among an op's arguments (a schema nests them one list deep at most)."""
    import torch

    found = []
    for value in values:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, torch.Tensor))
    return found


def runs_python(func: Any, keys: Any, kwargs: dict) -> bool:
    """Whether the kernel `keys` dispatch `func` to was registered from Python (torch.library):
    its own ops then go through the dispatcher where a mode sees them. Behind a factory's
    BackendSelect kernel, the kernel of the device it selects counts too."""
    import torch

    C: Any = torch._C
    key = keys.highestPriorityTypeId()
    kernels = [key]
    if key == C.DispatchKey.BackendSelect:
        device = kwargs.get("device")
        device_type = getattr(device, "type", device) or "cpu"
        kernels.append(getattr(C.DispatchKey, str(device_type).upper(), C.DispatchKey.CPU))
    return any(_registered_from_python(func.name(), k) for k in kernels)


def _registered_from_python(name: str, key: Any) -> bool:
    import torch

    C: Any = torch._C
    try:
        kernel = C._dispatch_get_computed_kernel_for_dispatch_key(name, key)
    except (RuntimeError, TypeError):  # no kernel there: the call fails as it would have
        return False
    return _PYTHON_REGISTRATION.search(repr(kernel)) is not None


def _real_kernel(name: str, key: Any) -> bool:
    import torch

    C: Any = torch._C
    return bool(C._dispatch_has_kernel_for_dispatch_key(name, key)) and \
        not C._dispatch_kernel_for_dispatch_key_is_fallthrough(name, key)


def is_higher_order(func: Any) -> bool:
    """A higher-order operator (`wrap_triton` outside a triton_op on a GPU dispatches one):
    Python through and through, so it too runs under the mode instead of hiding from it."""
    from torch._ops import HigherOrderOperator

    return isinstance(func, HigherOrderOperator)


def higher_order_key(args: tuple, kwargs: dict) -> Any:
    """The backend key of a higher-order op's tensors, found at any depth (wrap_triton passes
    the launch's arguments as a dict): Undefined without any, which picks its composite kernel."""
    import torch
    from torch.utils._pytree import tree_leaves

    C: Any = torch._C
    keys = C.DispatchKeySet(C.DispatchKey.Undefined)
    for leaf in tree_leaves((args, kwargs)):
        if isinstance(leaf, torch.Tensor):
            keys = keys | C._dispatch_keys(leaf)
    keys = keys & C._dispatch_keyset_full_after(C.DispatchKey.Python)
    return keys.highestPriorityTypeId()
