"""Does cuBLAS's workspace show in torch.cuda.memory_allocated, and does clearing it take it
back out? (The judge's canary, kgb/judge/__main__.py `held_memory`.) Prints three figures."""

import torch

before = torch.cuda.memory_allocated()
a = torch.ones(256, 256, device="cuda", dtype=torch.float64)
(a @ a).sum().item()
del a
torch.cuda.empty_cache()
after = torch.cuda.memory_allocated()
torch._C._cuda_clearCublasWorkspaces()
cleared = torch.cuda.memory_allocated()
print(f"cublas workspace: before {before} after a GEMM {after} after clearing {cleared}")
