"""What a submission's author starts from: `kgb init DIR --task ID ...` writes a manifest and
one kernel file per task to fill in (docs/submission.md), and `kgb tasks prompt ID` prints what
a generator is given — the spec, the rules of the file, and the same skeleton as the expected
answer's shape. A skeleton is deliberately not a kernel: its entry raises until written."""

from __future__ import annotations

import json
import re
import textwrap
from datetime import date
from pathlib import Path

from kgb.errors import BadInput
from kgb.tasks.model import Task
from kgb.tasks.spec import render_spec


def entry_params(signature: str) -> list[str]:
    """Parameter names of `run(x: Tensor[M, N], eps: float = 1e-6) -> ...`."""
    m = re.match(r"\s*\w+\s*\((.*)\)\s*(->.*)?$", signature)
    if not m:
        return []
    params, depth, current = [], 0, ""
    for ch in m.group(1):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += ch
    params.append(current)
    names = [re.split(r"[:=]", p)[0].strip() for p in params]
    return [n for n in names if n.isidentifier()]


def first_sentence(text: str, limit: int = 240) -> str:
    """The description's first sentence, whole (descriptions wrap their lines, so the first
    line stops mid-sentence); cut at a word, with "…", only past `limit` characters."""
    flat = " ".join(text.split()).replace('"""', "'''").replace("\\", "\\\\")
    match = re.search(r"[.!?](?=\s|$)", flat)
    sentence = flat[: match.end()] if match else flat
    if len(sentence) > limit:
        sentence = sentence[:limit].rsplit(" ", 1)[0] + " …"
    return sentence


def kernel_file(task: Task) -> str:
    params = entry_params(task.signature)
    head = textwrap.fill(f"{task.id}: {first_sentence(task.description)}", 96)
    return f'''"""{head}

Entry: {task.signature}
Full spec: `kgb tasks show {task.id}`; file rules: docs/submission.md."""
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(in_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # TODO: this block of the task's output, computed from its inputs.
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    value = tl.load(in_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, value, mask=mask)


{_entry(task, params)}'''


def _entry(task: Task, params: list[str]) -> str:
    todo = ("    # TODO: allocate the outputs (torch.empty*), launch your kernel(s) with "
            "kernel[grid](...),\n    # return the outputs. Only allocation, shape/stride/dtype "
            "queries and views on the host.\n")
    if task.source == "kernelbench" and task.entry == "ModelNew":  # docs/submission.md
        init, _, forward = task.signature.partition("; forward(")
        init_args = init.partition("__init__(")[2].rstrip(")")
        return (f"class ModelNew(torch.nn.Module):\n    def __init__({init_args}):\n"
                f"        super().__init__()\n        # TODO: the Model's parameters, made as "
                f"the Model makes them (same order, same initialisers).\n\n"
                f"    def forward({forward.rstrip(')')}):\n" + todo.replace("    #", "        #")
                + f'        raise NotImplementedError("{task.id}: write the kernel and its '
                f'launch")\n')
    return (f"def {task.entry}({', '.join(params)}):\n" + todo +
            f'    raise NotImplementedError("{task.id}: write the kernel and its launch")\n')


def manifest(name: str, tasks: list[Task], tasks_dir: Path | None = None) -> str:
    """`tasks_dir`: a task folder other than the bundled suite, recorded as [submission] tasks
    so that `kgb verify THIS_FOLDER` finds the tasks without --tasks (kgb.quickstart)."""
    lines = ["# A kgb submission (docs/submission.md). `kgb verify THIS_FOLDER` checks it.",
             "[submission]", f"name = {json.dumps(name)}", 'generator = "by hand"',
             'model = "none"', f'created = "{date.today().isoformat()}"']
    if tasks_dir is not None:
        lines.append(f"tasks = {json.dumps(str(tasks_dir))}  # the task folder (kgb init --tasks)")
    lines.append("")
    for task in tasks:
        lines += ["[[kernels]]", f'task = "{task.id}"', f'file = "{file_name(task)}"', ""]
    return "\n".join(lines)


def file_name(task: Task) -> str:
    return f"kernels/{task.id.replace('.', '_')}.py"


def write_skeleton(folder: Path, tasks: list[Task], name: str,
                   tasks_dir: Path | None = None) -> list[Path]:
    """The manifest and one kernel file per task; refuses to overwrite anything."""
    targets = [folder / "manifest.toml"] + [folder / file_name(t) for t in tasks]
    existing = [p for p in targets if p.exists()]
    if existing:
        raise BadInput(f"{existing[0]} already exists; `kgb init` never overwrites: choose "
                       f"another folder")
    (folder / "kernels").mkdir(parents=True, exist_ok=True)
    (folder / "manifest.toml").write_text(manifest(name, tasks, tasks_dir))
    for task in tasks:
        (folder / file_name(task)).write_text(kernel_file(task))
    return targets


def prompt(task: Task) -> str:
    """What a generator is given for one task."""
    return (render_spec(task) + "\n## Answer format\n"
            "One Python file defining the entry function; it may import torch, triton, "
            "triton.language and math (plus itertools, collections, enum, functools, typing, "
            "dataclasses). No file, network, process, thread or stream machinery; no changes to "
            "modules or classes it did not define. Where no GPU is present kgb runs the kernel "
            "through Triton's CPU interpreter on CPU tensors: code written for CUDA still runs "
            "(`x.is_cuda`, `device=\"cuda\"` and torch.cuda's device queries see a CUDA device; "
            "allocations land on the CPU), so write it for the GPU. Start from this file:"
            "\n\n```python\n"
            + kernel_file(task) + "```\n")
