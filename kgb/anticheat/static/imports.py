"""S180 and the import-site half of the category rules: what a file imports says what it means
to do before any of it is used (`import threading`, `from torch.utils.cpp_extension import
load_inline`). Plain torch/triton submodules are fine to import; their uses are judged by name."""

from __future__ import annotations

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.context import Analysis, Hit
from kgb.anticheat.static.policy import classify, classify_import
from kgb.anticheat.static.references import NOUNS, forbidden_by_task


def check(a: Analysis) -> list[Hit]:
    hits: list[Hit] = []
    for imp in a.model.imports:
        node = imp.node
        if imp.relative:
            hits.append(Hit(R.IMPORT_NOT_ALLOWED, node,
                            "relative import: a kernel file is one file and imports nothing "
                            "beside it"))
            continue
        if imp.member == "*":
            hits.append(Hit(R.IMPORT_NOT_ALLOWED, node,
                            f"`from {imp.module} import *` hides which names the file uses"))
        rule = classify_import(imp.module)
        if rule is R.IMPORT_NOT_ALLOWED:
            hits.append(Hit(rule, node, f"import of {imp.module}: not in the import allowlist"))
        elif rule is not None:
            hits.append(Hit(rule, node, f"import of {imp.module} ({NOUNS[rule.id]})"))
            if imp.module.split(".")[0] not in ("torch", "triton"):
                hits.append(Hit(R.IMPORT_NOT_ALLOWED, node,
                                f"import of {imp.module}: not in the import allowlist"))
        if imp.member and imp.member != "*":
            qname = f"{imp.module}.{imp.member}"
            entry = forbidden_by_task(a, qname, None)
            if entry is not None:
                hits.append(Hit(R.TASK_FORBIDDEN, node,
                                f"import of {qname}, forbidden by this task (forbid: {entry!r})"))
            member_rule = classify(qname, a.category)
            # An unused `from torch import matmul` computes nothing: S110 waits for a use.
            if member_rule is not None and member_rule is not rule and \
                    member_rule is not R.TORCH_COMPUTE:
                hits.append(Hit(member_rule, node,
                                f"import of {qname} ({NOUNS[member_rule.id]})"))
    return hits
