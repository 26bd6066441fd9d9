"""The task spec as a generator is given it (`kgb tasks show ID`)."""

from __future__ import annotations

from kgb.errors import TaskError
from kgb.tasks.model import Task


def find_task(suite: dict[str, Task], task_id: str) -> Task:
    if task_id not in suite:
        raise TaskError(unknown_task(task_id, suite))
    return suite[task_id]


def unknown_task(task_id: str, known, what: str = "unknown task id") -> str:
    """One line for an id the suite does not have, with the nearest ids (a typo, or an id of
    the wrong folder: `--tasks`)."""
    from difflib import get_close_matches

    from kgb.errors import quoted

    near = get_close_matches(task_id, list(known), n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    return (f"{what} {quoted(task_id)}{hint}; `kgb tasks list` shows the suite (imported "
            "tasks: add --tasks DIR)")


def inplace_contract(task: Task) -> str:
    """The in-place output contract in words (docs/tasks.md, "In-place tasks")."""
    from kgb.tasks.skeleton import entry_params

    params = entry_params(task.signature)
    names = ", ".join(params[i] if i < len(params) else f"input {i}" for i in task.inplace)
    return ("\nUpdate IN PLACE the memory of these inputs: " + names + " (the entry may return "
            "None or\nthose tensors; whatever it returns is ignored: after the call kgb reads "
            "those inputs'\nmemory as the outputs). Modify no other input, and do not rebind "
            "them (set_, resize_):\na fresh tensor with the answer leaves the inputs unchanged "
            "and fails.")


def render_spec(task: Task) -> str:
    shapes = "\n".join(
        f"  - {s.name}: " + ", ".join(f"{k}={v}" for k, v in s.dims) + f"  [{', '.join(s.tags)}]"
        for s in task.shapes)
    tolerances = "\n".join(f"  - {d}: atol={t.atol:g} rtol={t.rtol:g} rel_l2={t.rel_l2:g}"
                           for d, t in task.tolerance)
    glue = ("" if task.glue != "views" else
            "\nThis task's answer is a re-layout: host code may not copy tensor data either (no\n"
            ".contiguous() of a strided tensor, clone, copy_, reshape of a non-viewable tensor):\n"
            "read the inputs through their strides in your kernel.")
    contract = "Do not modify the inputs." if not task.inplace else inplace_contract(task)
    return f"""# {task.id}  ({task.category}, level {task.level}, {task.direction})

{task.description}

Define: {task.signature}
The entry function `{task.entry}` must compute the result with @triton.jit kernel(s) of its own
file, launched as kernel[grid](...). Host code may only allocate outputs, query shapes/strides/
dtypes and make views; PyTorch compute on the host is rejected. {contract}{glue}

dtypes: {', '.join(task.dtypes)}
inputs: {', '.join(task.modes)} distributions (outlier: a few elements amplified by orders of
magnitude, plus the task's own edge cases)
shapes:
{shapes}
accepted when every element is within atol + rtol*|ref| AND ||out-ref||/||ref|| <= rel_l2:
{tolerances}
"""
