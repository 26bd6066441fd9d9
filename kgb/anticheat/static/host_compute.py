"""S111 and S112: PyTorch computing through Python syntax on the host rather than through a
named function: operators on tensors, `@`, indexing with a tensor (a gather), item assignment
into a tensor (a copy or scatter), builtins such as abs()/sum()/float() applied to a tensor,
Python loops over a tensor's elements.
Kernel bodies are Triton's language, where all of this is fine."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.context import Analysis, Hit, short
from kgb.anticheat.static.policy import TENSOR_BUILTINS
from kgb.anticheat.static.tensors import TensorFacts

_IDENTITY = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


def check(a: Analysis, tensors: TensorFacts) -> list[Hit]:
    hits: list[Hit] = []
    code = a.model.module.code_for_node

    def tensor(node, site) -> bool:
        return tensors.is_tensor(node, site.owner, site.scope)

    for op in a.model.operators:
        node, site = op.node, op.site
        if a.in_kernel(site.owner):
            continue
        matmul = isinstance(node, cst.BinaryOperation) and \
            isinstance(node.operator, cst.MatrixMultiply)
        matmul_assign = isinstance(node, cst.AugAssign) and \
            isinstance(node.operator, cst.MatrixMultiplyAssign)
        if matmul or matmul_assign:
            hits.append(Hit(R.MATMUL_OPERATOR, node,
                            f"`{code(node)}` multiplies matrices with @ on the host"))
            continue
        operands: tuple[cst.BaseExpression, ...]
        if isinstance(node, cst.BinaryOperation):
            operands = (node.left, node.right)
        elif isinstance(node, cst.UnaryOperation):
            operands = (node.expression,)
        elif isinstance(node, cst.AugAssign):
            operands = (node.target, node.value)
        else:  # Comparison: `x is None`, `k in d` never compute on a tensor
            node = cst.ensure_type(node, cst.Comparison)
            if all(isinstance(c.operator, _IDENTITY) for c in node.comparisons):
                continue
            operands = (node.left,) + tuple(c.comparator for c in node.comparisons)
        for operand in operands:
            if tensor(operand, site):
                hits.append(Hit(R.TENSOR_COMPUTE, node,
                                f"`{short(code(node))}` computes on tensor "
                                f"`{short(code(operand))}` on the host"))
                break

    for item in a.model.items:
        if a.in_kernel(item.site.owner):
            continue
        for element in item.node.slice:
            index = element.slice
            if isinstance(index, cst.Index) and tensor(index.value, item.site):
                hits.append(Hit(R.TENSOR_COMPUTE, item.node,
                                f"`{short(code(item.node))}` indexes with a tensor on the host "
                                f"(a PyTorch gather)"))
                break

    for store in a.model.stores:
        if store.kind == "item" and not a.in_kernel(store.site.owner) and \
                tensor(store.base, store.site):
            hits.append(Hit(R.TENSOR_COMPUTE, store.node,
                            f"`{short(code(store.node))}` writes into a tensor on the host (a "
                            f"PyTorch copy/scatter)"))

    for loop in a.model.loops:
        if not a.in_kernel(loop.site.owner) and tensor(loop.node, loop.site):
            hits.append(Hit(R.TENSOR_COMPUTE, loop.node,
                            f"iterating over tensor `{short(code(loop.node))}` on the host reads "
                            f"it element by element"))

    for call in a.model.calls:
        site = call.site
        if a.in_kernel(site.owner):
            continue
        names = {q[len("builtins."):] for q in a.resolve.qnames(call.node.func, site.scope)
                 if q.startswith("builtins.")}
        if names & TENSOR_BUILTINS and any(
                tensor(arg.value, site) or tensors.holds_tensors(arg.value, site.owner, site.scope)
                for arg in call.node.args):  # sum([a, b]) adds tensors too
            hits.append(Hit(R.TENSOR_COMPUTE, call.node,
                            f"`{short(code(call.node))}` applies a Python builtin to a tensor "
                            f"(PyTorch compute or a device-to-host read)"))
    return hits

