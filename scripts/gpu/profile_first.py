"""The first profiler session of a fresh process, as kgb's worker runs it (kgb.bench.profiler
`profile_call`), after torch, Triton and a CUDA context: seconds, whether torch._inductor got
imported, and what the session saw. Compare scripts/gpu/profile_cost.py (run 23: 3.5-4.8 s)."""

import sys
import time

import torch
import triton  # noqa: F401  (as in the worker: imported before any profiling)

from kgb.bench.profiler import profile_call

torch.ones(1, device="cuda").add_(1)
torch.cuda.synchronize()
began = time.perf_counter()
seen = profile_call(lambda: torch.ones(1 << 20, device="cuda").mul_(2), torch.cuda.synchronize)
print(f"first session {time.perf_counter() - began:.3f} s; torch._inductor imported: "
      f"{'torch._inductor' in sys.modules}; saw {seen}")
