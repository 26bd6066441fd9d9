"""Write the throughput benchmark's batch (scripts/bench_throughput.py) into
scripts/kernelbench/batch/: KernelBench problems (`Model`, `get_inputs`, `get_init_inputs`) —
the kit's two (problems/) and seven of kgb's suite tasks written in KernelBench's format — and,
for each, four honest `ModelNew` Triton answers that differ in block size and warps (one for the
kit's 1.6 G-element softmax): four kgb submissions v0..v3 of one kernel per task, 33 kernels on
9 tasks.

    python scripts/kernelbench/make_batch.py        # rewrites scripts/kernelbench/batch/

The written files are committed; this script is how they were made (and how to change them)."""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "batch"

HEADER = "import torch\nimport torch.nn as nn\n"
KERNEL_HEADER = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n"
NO_INIT = "\n\ndef get_init_inputs():\n    return []\n"

# The suite's tasks (activation.relu, activation.silu, reduce.sum_rows, normalization.rms_norm,
# normalization.softmax, matmul.matmul, reduce.max_rows) as KernelBench problems.
PROBLEMS = {
    "3_ReLU_large.py": HEADER + '''

class Model(nn.Module):
    """ReLU of a float32 matrix (kgb's activation.relu)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 4096
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]
''' + NO_INIT,
    "4_SiLU_large.py": HEADER + '''

class Model(nn.Module):
    """SiLU (x * sigmoid(x)) of a float32 matrix (kgb's activation.silu)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.silu(x)


batch_size = 4096
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]
''' + NO_INIT,
    "5_Sum_rows.py": HEADER + '''

class Model(nn.Module):
    """Sum over the last dimension, kept as a column (kgb's reduce.sum_rows)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1, keepdim=True)


batch_size = 4096
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]
''' + NO_INIT,
    "6_RMSNorm_rows.py": HEADER + '''

class Model(nn.Module):
    """RMSNorm over the last dimension with a learned scale (kgb's normalization.rms_norm)."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x * scale * self.weight


batch_size = 4096
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]
''',
    "7_Softmax_rows.py": HEADER + '''

class Model(nn.Module):
    """Softmax over the last dimension (kgb's normalization.softmax)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4096
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]
''' + NO_INIT,
    "9_Max_rows.py": HEADER + '''

class Model(nn.Module):
    """Maximum over the last dimension (kgb's reduce.max_rows)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amax(x, dim=1)


batch_size = 4096
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]
''' + NO_INIT,
    "8_Matmul_square.py": HEADER + '''

class Model(nn.Module):
    """C = A @ B in float32 (kgb's matmul.matmul)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 1024
K = 1024
N = 1024


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]
''' + NO_INIT,
}

ELEMENTWISE = KERNEL_HEADER + '''

@triton.jit
def _{name}_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, {expr}, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        _{name}_kernel[(triton.cdiv(n, {block}),)](x, out, n, BLOCK={block}, num_warps={warps})
        return out
'''

GELU_EXPR = "0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))"
RELU_EXPR = "tl.maximum(x, 0.0)"
SILU_EXPR = "x / (1.0 + tl.exp(-x))"

SUM_ROWS = KERNEL_HEADER + '''

@triton.jit
def _sum_rows_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty((rows, 1), dtype=x.dtype, device=x.device)
        block = min({block}, triton.next_power_of_2(cols))
        _sum_rows_kernel[(rows,)](x, out, cols, BLOCK=block, num_warps={warps})
        return out
'''

RMS_NORM = KERNEL_HEADER + '''

@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, out_ptr, cols, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    squares = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0)
        squares += x * x
    scale = 1.0 / tl.sqrt(tl.sum(squares, 0) / cols + eps)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0)
        w = tl.load(w_ptr + offs, mask=offs < cols, other=0.0)
        tl.store(out_ptr + base + offs, x * scale * w, mask=offs < cols)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        block = min({block}, triton.next_power_of_2(cols))
        _rms_norm_kernel[(rows,)](x, self.weight, out, cols, self.eps, BLOCK=block,
                                  num_warps={warps})
        return out
'''

SOFTMAX = KERNEL_HEADER + '''

@triton.jit
def _softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    # One program per row: an online max/sum pass over blocks, then exp(x - max) / sum.
    base = tl.program_id(0).to(tl.int64) * cols
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=-float("inf"))
        m_new = tl.maximum(m, x)
        empty = m_new == -float("inf")  # lanes that have seen only padding
        s = tl.where(empty, 0.0, s * tl.exp(m - m_new) + tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, 0)
    total = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), 0)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=-float("inf"))
        tl.store(out_ptr + base + offs, tl.exp(x - row_max) / total, mask=offs < cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        block = min({block}, triton.next_power_of_2(cols))
        _softmax_kernel[(rows,)](x, out, cols, BLOCK=block, num_warps={warps})
        return out
'''

MATMUL = KERNEL_HEADER + '''

@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")  # float32 as the reference computes it
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), dtype=A.dtype, device=A.device)
        grid = (triton.cdiv(M, {bm}), triton.cdiv(N, {bn}))
        _matmul_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0),
                             B.stride(1), C.stride(0), C.stride(1), BM={bm}, BN={bn}, BK={bk},
                             num_warps={warps})
        return C
'''

MAX_ROWS = KERNEL_HEADER + '''

@triton.jit
def _max_rows_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    best = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=-float("inf"))
        best = tl.maximum(best, x)
    tl.store(out_ptr + tl.program_id(0), tl.max(best, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty((rows,), dtype=x.dtype, device=x.device)
        block = min({block}, triton.next_power_of_2(cols))
        _max_rows_kernel[(rows,)](x, out, cols, BLOCK=block, num_warps={warps})
        return out
'''

WIDE_SOFTMAX = SOFTMAX.replace("_softmax_kernel", "_softmax_wide_kernel")

# (problem file, kernel file stem, task id, kernel template, one dict of fields per variant)
ELEMENTWISE_VARIANTS = [dict(block=b, warps=w) for b, w in ((512, 2), (1024, 4), (2048, 8),
                                                             (4096, 8))]
ROW_VARIANTS = [dict(block=b, warps=w) for b, w in ((1024, 4), (2048, 8), (4096, 8),
                                                     (8192, 16))]
MATMUL_VARIANTS = [dict(bm=m, bn=n, bk=k, warps=w) for m, n, k, w in
                   ((32, 32, 32, 4), (64, 64, 32, 4), (64, 32, 32, 4), (32, 64, 16, 4))]
# The kit's 1.6 G-element softmax costs ~80 s a kernel in KernelBench's evaluator and ~170 s in
# kgb (docs/performance.md): one answer (the kit's own block and warps, in v2) keeps the batch
# within a few device calls; every other task has four.
WIDE_VARIANTS = [None, None, ROW_VARIANTS[2], None]
BATCH = (
    ("1_GELU_large.py", "gelu_large", "activation.kb_1_gelu_large",
     ELEMENTWISE.replace("{name}", "gelu").replace("{expr}", GELU_EXPR), ELEMENTWISE_VARIANTS),
    ("2_Softmax_wide.py", "softmax_wide", "normalization.kb_2_softmax_wide", WIDE_SOFTMAX,
     WIDE_VARIANTS),
    ("3_ReLU_large.py", "relu_large", "activation.kb_3_relu_large",
     ELEMENTWISE.replace("{name}", "relu").replace("{expr}", RELU_EXPR), ELEMENTWISE_VARIANTS),
    ("4_SiLU_large.py", "silu_large", "activation.kb_4_silu_large",
     ELEMENTWISE.replace("{name}", "silu").replace("{expr}", SILU_EXPR), ELEMENTWISE_VARIANTS),
    ("5_Sum_rows.py", "sum_rows", "reduce.kb_5_sum_rows", SUM_ROWS, ROW_VARIANTS),
    ("6_RMSNorm_rows.py", "rmsnorm_rows", "normalization.kb_6_rmsnorm_rows", RMS_NORM,
     ROW_VARIANTS),
    ("7_Softmax_rows.py", "softmax_rows", "normalization.kb_7_softmax_rows", SOFTMAX,
     ROW_VARIANTS),
    ("8_Matmul_square.py", "matmul_square", "matmul.kb_8_matmul_square", MATMUL,
     MATMUL_VARIANTS),
    ("9_Max_rows.py", "max_rows", "reduce.kb_9_max_rows", MAX_ROWS, ROW_VARIANTS),
)
VARIANTS = 4


def fill(template: str, fields: dict) -> str:
    out = template
    for name, value in fields.items():
        out = out.replace("{" + name + "}", str(value))
    return out


def main(out: Path = OUT) -> None:
    if out.exists():
        shutil.rmtree(out)
    problems = out / "problems"
    problems.mkdir(parents=True)
    for name in ("1_GELU_large.py", "2_Softmax_wide.py"):  # the kit's own
        shutil.copyfile(HERE / "problems" / name, problems / name)
    for name, source in PROBLEMS.items():
        (problems / name).write_text(source)
    for v in range(VARIANTS):
        sub = out / f"v{v}"
        (sub / "kernels").mkdir(parents=True)
        manifest = [f'# Variant {v} of each answer (scripts/kernelbench/make_batch.py).',
                    "[submission]", f'name = "throughput-v{v}"',
                    'generator = "scripts/kernelbench/make_batch.py"', 'model = "none"',
                    'created = "2026-11-27"', ""]
        for _problem, stem, task, template, variants in BATCH:
            if variants[v] is None:
                continue
            (sub / "kernels" / f"{stem}.py").write_text(fill(template, variants[v]))
            manifest += ["[[kernels]]", f'task = "{task}"', f'file = "kernels/{stem}.py"', ""]
        (sub / "manifest.toml").write_text("\n".join(manifest))


if __name__ == "__main__":
    main()
