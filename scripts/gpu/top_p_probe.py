"""Where random.top_p_sampling's solution differs compiled vs interpreted (H100 run 20: its
samples failed the statistics on the GPU only: the most probable token drawn too often, the
least probable kept tokens too rarely, so some rows' nucleus looked one group short). The same
inputs (made on the CPU, then moved) go through the solution's two kernels on both sides; the
compare step prints per row the row max, the cut (the boundary logit's order key since session
31; before, the bits of a weight the sampling kernel recomputed with other roundings) and the
nucleus size each side found, and each side's share of samples on the law's least probable kept
tokens.

    TRITON_INTERPRET=1 python scripts/gpu/top_p_probe.py cpu cpu.pt
    python scripts/gpu/top_p_probe.py cuda gpu.pt
    python scripts/gpu/top_p_probe.py compare cpu.pt gpu.pt"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

if os.environ.get("TRITON_INTERPRET") == "1":
    from kgb.worker.interpreter_fixes import apply

    apply()

import torch  # noqa: E402

TASK = ROOT / "tasks" / "Random" / "top_p_sampling"
CASES = (({"M": 16, "V": 256, "S": 512}, "float32", "standard", 11),
         ({"M": 4, "V": 1500, "S": 256}, "float32", "standard", 12))


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"top_p_{name}", TASK / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(device: str) -> dict:
    inputs, solution = _load("inputs"), _load("solution")
    found = {}
    for i, (shape, dtype, mode, seed) in enumerate(CASES):
        logits, temp, top_p, s, draw_seed = inputs.make_inputs(
            shape, dtype, torch.Generator().manual_seed(seed), mode)
        logits, temp, top_p = logits.to(device), temp.to(device), top_p.to(device)
        m, v = logits.shape
        row_max = torch.empty((m,), device=device, dtype=torch.float32)
        cut = torch.empty((m,), device=device, dtype=torch.int32)
        solution._nucleus_kernel[(m,)](logits, temp, top_p, row_max, cut, v, logits.stride(0),
                                       BLOCK_V=1024)
        samples = solution.run(logits, temp, top_p, s, draw_seed)
        # the nucleus as the sampling kernel takes it: logits whose order key is at least the cut
        x = logits.float()
        bits = torch.where(x == 0, torch.zeros_like(x), x).view(torch.int32)
        kept = (bits ^ ((bits >> 31) & 0x7FFFFFFF)) >= cut[:, None]
        found[i] = {"row_max": row_max.cpu(), "cut": cut.cpu(), "kept": kept.sum(1).cpu(),
                    "samples": samples.cpu(), "inputs": (logits.cpu(), temp.cpu(), top_p.cpu(),
                                                         s, draw_seed)}
    return found


def compare(cpu: dict, gpu: dict) -> None:
    reference = _load("reference")
    for i in cpu:
        a, b = cpu[i], gpu[i]
        _, _, law = reference._law(a["inputs"])
        low = law.masked_fill(law <= 0, 2.0).min(1, keepdim=True).values
        print(f"case {i}: {CASES[i][:3]}; law nucleus sizes {(law > 0).sum(1).tolist()}")
        for r in range(law.shape[0]):
            lows = (law[r] == low[r]).nonzero().flatten()
            share = [float((x["samples"][r][:, None] == lows[None, :]).any(1).float().mean())
                     for x in (a, b)]
            print(f"  row {r}: row_max {float(a['row_max'][r]):.9g} / "
                  f"{float(b['row_max'][r]):.9g}; cut key {int(a['cut'][r])} / "
                  f"{int(b['cut'][r])}; kept {int(a['kept'][r])} / {int(b['kept'][r])}; "
                  f"least-probable share {share[0]:.3f} / {share[1]:.3f} "
                  f"(law {float(law[r][law[r] == low[r]].sum()):.3f})")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(torch.load(sys.argv[2]), torch.load(sys.argv[3]))
    else:
        torch.save(run(sys.argv[1]), sys.argv[2])
