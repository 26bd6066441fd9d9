"""Compiled Triton on the GPU: which of tests/fixtures/compile/ compile (kgb predicts it on the CPU,
kgb/runner/jit_globals.py). Run from the repository root: $PY scripts/gpu/jit_globals.py"""
import importlib.util, sys, torch
from pathlib import Path
for f in sorted(Path("tests/fixtures/compile").glob("*.py")):
    spec = importlib.util.spec_from_file_location(f.stem, f); m = importlib.util.module_from_spec(spec)
    sys.modules[f.stem] = m; spec.loader.exec_module(m)
    x, a, b = (torch.randn(1000, device="cuda") for _ in range(3))
    try:
        out = m.run(x, a, b); torch.cuda.synchronize()
        print("JITG", f.name, "compiled, correct:", torch.allclose(out, x + 0.5 * a * b))
    except Exception as e:
        print("JITG", f.name, "refused:", type(e).__name__, str(e).strip().splitlines()[-1][:160])
