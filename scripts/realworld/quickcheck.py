"""Fast local check of built kernels on the tiny shapes (our iteration loop, not the verdict):
runs each kernel in Triton's interpreter in this process, as kgb's quality check runs suite
solutions, and compares with the task's reference. The verdict is `kgb verify` (README).

    python scripts/realworld/quickcheck.py .realworld/submissions/<sub> [--tasks DIR] [--only IDS] [--all]"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")

import argparse
import tomllib
import traceback
from pathlib import Path

import torch

from kgb.anticheat.static import analyze
from kgb.suite.quality import TaskProbe, _as_list, _cases, prepare_interpreter
from kgb.tasks.casegen import load_module
from kgb.tasks.loader import load_suite


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("submission", type=Path)
    ap.add_argument("--tasks", type=Path, default=Path("/tmp/rwsuite"))
    ap.add_argument("--only", default="")
    ap.add_argument("--all", action="store_true", help="every CPU shape, not only tiny")
    args = ap.parse_args()
    prepare_interpreter()
    suite = load_suite(args.tasks)
    manifest = tomllib.loads((args.submission / "manifest.toml").read_text())
    only = set(filter(None, args.only.split(",")))
    bad = 0
    for k in manifest["kernels"]:
        if only and k["task"] not in only:
            continue
        task = suite[k["task"]]
        path = args.submission / k["file"]
        findings = analyze(path.read_text(), path.name, task.entry, task.forbid, task.category)
        for f in findings:
            print(f"  STATIC {f.location()} {f.rule} {f.message}")
        probe = TaskProbe(task)
        try:
            entry = getattr(load_module(path, f"rw_{task.id.replace('.', '_')}"), task.entry)
        except Exception:
            print(f"{task.id}: IMPORT FAILED\n{traceback.format_exc()[-1500:]}")
            bad += 1
            continue
        fails = []
        cases = _cases(task, args.all)
        for case in cases:
            inputs = probe.make(case)
            try:
                out = _as_list(entry(*inputs))
                why = probe.judge(out, inputs, case.dtype)
            except Exception as exc:
                why = f"raised {type(exc).__name__}: {str(exc)[:300]}"
            if why:
                fails.append(f"{case.id}: {why[:300]}")
        bad += bool(fails or findings)
        print(f"{task.id}: {'ok' if not fails else 'FAIL'} ({len(cases) - len(fails)}/{len(cases)})"
              + (" static findings" if findings else ""))
        for f in fails[:4]:
            print("   ", f)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
