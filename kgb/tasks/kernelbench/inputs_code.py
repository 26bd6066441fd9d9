"""The task's inputs.py, written from the problem's get_inputs() and get_init_inputs().

KernelBench draws inputs from torch's global RNG on the CPU; kgb draws them from the case's
explicit generator on the case's device (design rule 3), so every random call of get_inputs
is rewritten to pass `generator=gen` and every factory `device=gen.device`. The size
constants become the case's dims. The result holds no Model: the untrusted worker loads it."""

from __future__ import annotations

import ast
import builtins
import re

from kgb.tasks.kernelbench.parse import Problem, ProblemError

MODEL_SEED = 42  # what KernelBench seeds before building Model and ModelNew

_RANDOM = {"randn", "rand", "randint", "randperm", "normal", "bernoulli", "multinomial",
           "poisson", "randn_like", "rand_like", "randint_like"}
_FACTORIES = {"randn", "rand", "randint", "randperm", "zeros", "ones", "full", "empty",
              "arange", "linspace", "logspace", "eye", "tensor", "as_tensor", "empty_strided",
              "randn_like", "rand_like", "randint_like", "zeros_like", "ones_like", "full_like",
              "empty_like"}
_RANDOM_METHODS = {"normal_", "uniform_", "random_", "bernoulli_", "exponential_",
                   "geometric_", "cauchy_", "log_normal_"}
_BUILTINS = frozenset(dir(builtins)) - {"exec", "eval", "compile", "open", "__import__",
                                        "input", "globals", "locals", "vars", "getattr",
                                        "setattr", "delattr", "breakpoint"}


class _OnGenerator(ast.NodeTransformer):
    """Random calls draw from `gen`, factories allocate on `gen.device`, "cuda" means it."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = ast.unparse(node.func)  # `torch.randn`, not `torch.randn(n).cuda`
        name = func[len("torch."):] if re.fullmatch(r"torch\.\w+", func) else None
        if name in _RANDOM:
            _set_keyword(node, "generator", _gen())
        if name in _FACTORIES and not (name == "normal" and len(node.args) < 3):
            _set_keyword(node, "device", _gen_device())
        if isinstance(node.func, ast.Attribute) and name is None:
            if node.func.attr in _RANDOM_METHODS:
                _set_keyword(node, "generator", _gen())
            elif node.func.attr == "cuda":  # x.cuda() -> x.to(gen.device)
                return ast.Call(ast.Attribute(node.func.value, "to", ast.Load()),
                                [_gen_device()], [])
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and (node.value == "cuda" or node.value.startswith(
                "cuda:")):
            return _gen_device()
        return node


def _gen() -> ast.expr:
    return ast.Name("gen", ast.Load())


def _gen_device() -> ast.expr:
    return ast.Attribute(_gen(), "device", ast.Load())


def _set_keyword(node: ast.Call, name: str, value: ast.expr) -> None:
    node.keywords = [k for k in node.keywords if k.arg != name] + [ast.keyword(name, value)]


def check_names(problem: Problem, func: ast.FunctionDef) -> None:
    """Every name the function reads is one of its locals, a constant, a torch/math import or
    a harmless builtin: anything else would not exist in inputs.py."""
    imported = {n for line in problem.torch_imports for n in _bound_names(line)}
    constants = {c.name for c in problem.constants}
    local = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)
             and isinstance(n.ctx, (ast.Store, ast.Del))}
    local |= {a.arg for n in ast.walk(func) if isinstance(n, ast.Lambda) for a in n.args.args}
    for node in ast.walk(func):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
            raise ProblemError(f"{problem.path.name!r}: {func.name}() imports or declares "
                               f"names (line {node.lineno}); use module-level torch imports")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                node.id not in local | constants | imported | _BUILTINS:
            raise ProblemError(
                f"{problem.path.name!r}: {func.name}() uses {node.id!r} (line {node.lineno}), "
                f"which is not a module-level constant or a torch/math import; kgb rebuilds "
                f"{func.name}() from those alone: inline it")


def _bound_names(line: str) -> set[str]:
    node = ast.parse(line).body[0]
    assert isinstance(node, (ast.Import, ast.ImportFrom))
    return {a.name.split(".")[0] if isinstance(node, ast.Import) and a.asname is None
            else a.asname or a.name for a in node.names}


def inputs_source(problem: Problem, dims: tuple[str, ...]) -> str:
    """inputs.py: the constants, init_inputs(), build_model() and make_inputs()."""
    check_names(problem, problem.get_inputs)
    check_names(problem, problem.get_init_inputs)
    body = _OnGenerator().visit(ast.fix_missing_locations(ast.Module(
        [ast.parse(ast.unparse(s)).body[0] for s in problem.get_inputs.body], [])))
    ast.fix_missing_locations(body)
    get_inputs = _indent(ast.unparse(body), 8)
    # Constants computed from a dim are recomputed per case, in file order.
    scaled = _depending_on(problem, set(dims))
    per_case = [f'    {c.name} = shape["{c.name}"]' if c.name in dims else
                f"    {c.name} = {c.expr}" for c in problem.constants if c.name in scaled]
    constants = [f"{c.name} = {c.value!r}" for c in problem.constants]
    init_body = _indent(ast.unparse(ast.Module(problem.get_init_inputs.body, [])), 4)
    imports = sorted(set(problem.torch_imports) | {"import math", "import torch"})
    return f'''"""Inputs of the KernelBench problem {problem.path.name}: generated by
`kgb tasks import-kernelbench` from its get_inputs() and get_init_inputs(). Random calls draw
from the case's generator on its device; the size constants come from the case's dims.
Loaded by both workers: it holds no Model (that is in reference.py, for the judge only)."""
{chr(10).join(imports)}

from kgb.tasks.inputs import build_module, maybe_outliers

MODEL_SEED = {MODEL_SEED}

# The problem's module-level constants, as given.
{chr(10).join(constants)}


def init_inputs():
    """The problem's get_init_inputs()."""
{init_body}


def build_model(cls, device):
    """Model (judge) and ModelNew (candidate worker) are built by this one function, as
    KernelBench builds them: torch.manual_seed(MODEL_SEED), then cls(*init_inputs())."""
    return build_module(cls, init_inputs, MODEL_SEED, device)


def make_inputs(shape, dtype, gen, mode):
    """The problem's get_inputs() at the case's dims, drawn from `gen` on `gen.device`; in
    outlier mode every floating input gets a few amplified elements. `dtype`: the problem's
    own dtypes are kept."""
{chr(10).join(per_case) if per_case else "    pass"}

    def get_inputs():
{get_inputs}

    made = get_inputs()
    made = tuple(made) if isinstance(made, (list, tuple)) else (made,)
    return tuple(maybe_outliers(t, gen, mode)
                 if isinstance(t, torch.Tensor) and t.is_floating_point() else t
                 for t in made)
'''


def _depending_on(problem: Problem, dims: set[str]) -> set[str]:
    out = set(dims)
    for c in problem.constants:  # file order: dependencies come first
        if c.deps & out:
            out.add(c.name)
    return out


def _indent(text: str, spaces: int) -> str:
    pad = " " * spaces
    return "\n".join(pad + line if line.strip() else line for line in text.splitlines())
