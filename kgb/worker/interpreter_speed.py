"""The CPU interpreter's cost, never its semantics (issue 24).

Triton's interpreter re-patches triton.language for every call of a @triton.jit helper made
from inside a kernel (`InterpretedFunction.__call__` -> `_patch_lang`): an `inspect.getmembers`
scan of tl, tl.tensor and tl.math, each time, and the helpers are everywhere (tl.sum, tl.max,
tl.sigmoid, tl.rand's Philox rounds). In a dropout job that was 14,400 scans, a fifth of the
worker's time. A launch patches the language for its kernel and restores it when it ends; a
helper's patches are never restored. So within one launch, a helper whose language modules
were patched already (by the launch or an earlier helper) would only set the same attributes
again: that second scan is skipped. Outside a launch, and for modules not yet patched in this
launch, the interpreter's own `_patch_lang` runs as before."""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any


def apply() -> bool:
    """Install the once-per-launch patching; False when this Triton's interpreter does not
    have the shape it relies on (then nothing changes)."""
    try:
        import triton.language as tl
        from triton.runtime import interpreter as it
    except ImportError:  # pragma: no cover - no interpreter in this Triton
        return False
    original = getattr(it, "_patch_lang", None)
    scope_class = getattr(it, "_LangPatchScope", None)
    helper = getattr(it, "InterpretedFunction", None)
    helper_code = getattr(vars(helper).get("__call__"), "__code__", None) if helper else None
    if original is None or scope_class is None or helper_code is None:
        return False
    if getattr(original, "__kgb_once__", False):
        return True
    patched: set[int] = set()  # ids of the language modules patched in the current launch

    def langs(fn: Any) -> frozenset[int]:
        return frozenset(id(v) for v in fn.__globals__.values()
                         if isinstance(v, ModuleType) and (v is tl or v is tl.core))

    def patch_lang(fn: Any) -> Any:
        mine = langs(fn)
        if sys._getframe(1).f_code is helper_code:  # a helper called from a kernel
            if mine and mine <= patched:
                return scope_class()  # nothing new to patch; the caller drops it anyway
            scope = original(fn)
            patched.update(mine)
            return scope
        scope = original(fn)  # a launch: its scope is restored when the launch ends
        patched.clear()
        patched.update(mine)
        restore = scope.restore

        def restore_and_forget() -> None:
            patched.clear()
            restore()

        scope.restore = restore_and_forget
        return scope

    patch_lang.__kgb_once__ = True  # type: ignore[attr-defined]
    it._patch_lang = patch_lang
    return True
