"""Adapters: real third-party Triton kernels mapped onto kgb tasks.

Each Adapter names a pinned package, the file inside it, the @triton.jit functions (and helper
jit functions / module-level constants) to extract verbatim, the kgb task it implements, and our
glue: a `run(...)` with the task's signature that allocates outputs and launches the package's
kernel(s) with the package's own grid, block sizes and num_warps, adapting only argument
conventions (layouts: .contiguous() where the package requires a contiguous input, eps, output
allocation instead of in-place writes).

An adapter with `unfit` set is a kernel that does not fit any task (different semantics): it is
listed in docs/realworld.md with the reason and not built.

build.py turns this table into submissions; nothing third-party is committed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Package:
    dist: str      # PyPI name, fetched with `pip download --no-deps DIST==VERSION`
    version: str


PACKAGES = {
    "lightllm": Package("lightllm", "0.0.1"),
    "unsloth": Package("unsloth", "2026.10.9"),
    "fla": Package("fla-core", "0.6.0"),
    "vllm": Package("vllm", "0.33.0"),
    "sglang": Package("sglang", "0.5.23"),
    "torchao": Package("torchao", "0.18.0"),
}


@dataclass(frozen=True)
class Adapter:
    package: str                    # key of PACKAGES
    task: str                       # kgb task id
    source: str                     # file inside the package's archive
    kernels: tuple[str, ...]        # module-level names of `source` to extract (jit fns, consts)
    glue: str = ""                  # our code: the task's entry, launching the kernels
    helpers: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (other file, names) to extract
    imports: str = ""               # extra imports the extracted code needs (allowed modules)
    prelude: str = ""               # our stand-ins for package-level names (flags, aliases)
    drop_decorators: tuple[str, ...] = ()  # decorator substrings to drop
    variant: str = ""               # second submission for a second kernel of the same task
    notes: str = ""
    unfit: str = ""                 # why it fits no task (then nothing is built)


ADAPTERS: list[Adapter] = []


def add(*adapters: Adapter) -> None:
    ADAPTERS.extend(adapters)


# ---------------------------------------------------------------------------------------------
# lightllm 0.0.1
# ---------------------------------------------------------------------------------------------
LL = "lightllm/"
add(
    Adapter(
        "lightllm", "normalization.rms_norm", LL + "models/llama/triton_kernel/rmsnorm.py",
        ("_rms_norm_fwd_fused",),
        notes="rmsnorm_forward: one program per row, BLOCK_SIZE 32768, 8 warps (as the package "
              "overrides its own heuristic); x made contiguous (the kernel takes one row stride)",
        glue='''
def run(x, weight):
    x_arg = x.contiguous()
    y = torch.empty_like(x_arg)
    M, N = x_arg.shape
    BLOCK_SIZE = 128 * 2 * 2 * 2 * 2 * 2 * 2 * 2
    num_warps = 8
    _rms_norm_fwd_fused[(M,)](x_arg, y, weight, x_arg.stride(0), N, 1e-6,
                              BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y
'''),
    Adapter(
        "lightllm", "normalization.layer_norm", LL + "models/bloom/triton_kernel/layernorm.py",
        ("_layer_norm_fwd_fused",),
        notes="the package's launcher is commented out (it calls torch.layer_norm); the glue "
              "restores that launcher: one program per row, BLOCK_SIZE 8192, 8 warps",
        glue='''
def run(x, weight, bias):
    x_arg = x.contiguous()
    y = torch.empty_like(x_arg)
    M, N = x_arg.shape
    BLOCK_SIZE = 128 * 2 * 2 * 2 * 2 * 2 * 2
    num_warps = 8
    _layer_norm_fwd_fused[(M,)](x_arg, y, weight, bias, x_arg.stride(0), N, 1e-5,
                                BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y
'''),
    Adapter(
        "lightllm", "activation.silu_and_mul", LL + "models/llama/triton_kernel/silu_and_mul.py",
        ("_silu_and_mul_kernel",),
        notes="in place in the package (the result overwrites the first half of its input): "
              "the glue runs it on a copy of x and returns that half; silu is rounded to the "
              "input dtype before the product, as in the package",
        glue='''
def run(x):
    buf = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    buf.copy_(x)
    size_m = buf.shape[0]
    size_n = buf.shape[-1] // 2
    BLOCK_M = 128
    BLOCK_N = 128
    grid = (triton.cdiv(size_m, BLOCK_M), triton.cdiv(size_n, BLOCK_N))
    _silu_and_mul_kernel[grid](buf, buf.stride(0), buf.stride(1), buf.stride(0), buf.stride(1),
                               size_m, size_n, BLOCK_M, BLOCK_N)
    return buf[:, 0:size_n].contiguous()
'''),
    Adapter(
        "lightllm", "activation.gelu_tanh_and_mul",
        LL + "models/gemma_2b/triton_kernel/gelu_and_mul.py",
        ("_kAlpha", "tanh", "gelu", "_gelu_and_mul_kernel"),
        notes="gemma's gelu_and_mul (tanh approximation, tanh via sigmoid); in place in the "
              "package: run on a copy of x",
        glue='''
def run(x):
    buf = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    buf.copy_(x)
    size_m = buf.shape[0]
    size_n = buf.shape[-1] // 2
    BLOCK_M = 128
    BLOCK_N = 128
    grid = (triton.cdiv(size_m, BLOCK_M), triton.cdiv(size_n, BLOCK_N))
    _gelu_and_mul_kernel[grid](buf, buf.stride(0), buf.stride(1), buf.stride(0), buf.stride(1),
                               size_m, size_n, BLOCK_M, BLOCK_N)
    return buf[:, 0:size_n].contiguous()
'''),
    Adapter(
        "lightllm", "quantization.per_token_int8",
        LL + "common/basemodel/triton_kernel/quantize_gemm_int8.py",
        ("quantize_int8_perrow_kernel",),
        unfit="truncates (.to(tl.int8)) instead of rounding to nearest, keeps the scale in the "
              "input dtype and divides by a zero scale on an all-zero row (NaN): another "
              "quantizer than the task's round-half-even contract"),
    Adapter(
        "lightllm", "spatial.rotary_embedding_neox", LL + "models/llama/triton_kernel/rotary_emb.py",
        ("_rotary_kernel",),
        unfit="takes per-token cos/sin tables already gathered by position on the host "
              "(torch index_select) and needs a power-of-two head size (tl.arange(0, D/2)): no "
              "task gives gathered tables, and the task's odd shape has D = 80"),
)
