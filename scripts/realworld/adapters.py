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
    keep_decorators: tuple[str, ...] = ()  # non-triton decorator prefixes to keep (the
    #                                         prelude binds them, e.g. a package's autotune alias)
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


# ---------------------------------------------------------------------------------------------
# unsloth 2026.10.9 (unsloth/kernels): the one-row paths (UNSLOTH_RMSNORM_MULTIROW=0), launch
# settings from calculate_settings (BLOCK_SIZE = next_power_of_2(n), warps by size)
# ---------------------------------------------------------------------------------------------
US = "unsloth/kernels/"
_US_SETTINGS = '''
def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps
'''
_US_TANH = "triton_tanh = libdevice.tanh\ntriton_cast = tl.cast"
_US_LIBDEVICE = "from triton.language.extra import libdevice"
_US_ELEMENTWISE = '''
def _halves(x):
    n = x.shape[1] // 2
    return x[:, :n].contiguous(), x[:, n:].contiguous()


def _elementwise(kernel, e, g):
    n_elements = e.numel()
    h = torch.empty(e.shape, dtype=e.dtype, device=e.device)
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    kernel[grid](e, g, h, n_elements, BLOCK_SIZE=1024, LONG_INDEXING=0, enable_fp_fusion=True)
    return h


def _backward(kernel, x, grad_out):
    # the package's backward overwrites its three inputs with (h, df, de): run it on copies
    e, g = _halves(x)
    DW = torch.empty(grad_out.shape, dtype=grad_out.dtype, device=grad_out.device)
    DW.copy_(grad_out)
    n_elements = e.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    kernel[grid](DW, e, g, n_elements, BLOCK_SIZE=1024, LONG_INDEXING=0, enable_fp_fusion=True)
    n = e.shape[1]
    dx = torch.empty((e.shape[0], 2 * n), dtype=x.dtype, device=x.device)
    dx[:, :n].copy_(g)   # de: gradient of the gate half
    dx[:, n:].copy_(e)   # df: gradient of the up half
    return dx
'''
_US_RMS_FWD = _US_SETTINGS + '''

def _rms_forward(x, weight, kernel):
    X = x.contiguous()
    n_rows, n_cols = X.shape
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    r = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    kernel[(n_rows,)](Y, X, weight, r, Y_row_stride=Y.stride(0), X_row_stride=X.stride(0),
                      W_row_stride=weight.stride(0), r_row_stride=r.stride(0), n_cols=n_cols,
                      eps=1e-6, LONG_INDEXING=0, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
                      enable_fp_fusion=True)
    return Y, r
'''
add(
    Adapter(
        "unsloth", "normalization.rms_norm", US + "rms_layernorm.py", ("_rms_layernorm_forward",),
        prelude=_US_SETTINGS,
        notes="one row per program; normed is rounded to the weight dtype before the product "
              "(HF LlamaRMSNorm), as in the package",
        glue=_US_RMS_FWD + '''

def run(x, weight):
    return _rms_forward(x, weight, _rms_layernorm_forward)[0]
'''),
    Adapter(
        "unsloth", "normalization.gemma_rms_norm", US + "rms_layernorm.py",
        ("_gemma_rms_layernorm_forward",),
        glue=_US_RMS_FWD + '''

def run(x, weight):
    return _rms_forward(x, weight, _gemma_rms_layernorm_forward)[0]
'''),
    Adapter(
        "unsloth", "normalization.rms_norm_backward", US + "rms_layernorm.py",
        ("_rms_layernorm_forward", "_rms_backward_row", "_rms_layernorm_backward",
         "_rms_sum_dw_partials"),
        notes="forward kernel first for the saved 1/rms (as the autograd Function does), then "
              "the backward with TRAIN_W (per-program fp32 dW partials, 128 SMs x 4 programs: "
              "the package's fallback without device properties), then _rms_sum_dw_partials",
        glue=_US_RMS_FWD + '''

def run(x, weight, grad_out):
    X = x.contiguous()
    dY = grad_out.contiguous()
    _, r = _rms_forward(X, weight, _rms_layernorm_forward)
    n_rows, n_cols = dY.shape
    dX = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    max_programs = 128 * 4
    per_program = max(1, (n_rows + max(1, min(n_rows, max_programs)) - 1)
                      // max(1, min(n_rows, max_programs)))
    programs = max(1, (n_rows + per_program - 1) // per_program)
    partials = torch.empty((programs, n_cols), dtype=torch.float32, device=X.device)
    _rms_layernorm_backward[(programs,)](
        dY, dX, X, weight, r, partials, n_rows, per_program,
        dY_row_stride=dY.stride(0), dX_row_stride=dX.stride(0), X_row_stride=X.stride(0),
        W_row_stride=weight.stride(0), r_row_stride=r.stride(0), n_cols=n_cols, eps=1e-6,
        GEMMA=False, LONG_INDEXING=False, BLOCK_SIZE=BLOCK_SIZE, TRAIN_W=True, FROM_Y=False,
        num_warps=num_warps, enable_fp_fusion=True)
    dW = torch.empty(n_cols, dtype=weight.dtype, device=X.device)
    _rms_sum_dw_partials[((n_cols + 63) // 64,)](partials, dW, programs, n_cols,
                                                 BLOCK_ROWS=64, BLOCK_COLS=64,
                                                 enable_fp_fusion=True)
    return dX, dW
'''),
    Adapter(
        "unsloth", "normalization.fused_add_rms_norm", US + "fused_add_rms_layernorm.py",
        ("_add_rms_layernorm_inference",),
        notes="decode-step residual add + RMSNorm, in place on X and residual in the package: "
              "run on copies; normed rounded to the input dtype before the weight product",
        prelude=_US_SETTINGS,
        glue='''
def run(x, residual, weight):
    X = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    X.copy_(x)
    R = torch.empty(residual.shape, dtype=residual.dtype, device=residual.device)
    R.copy_(residual)
    n_cols = X.shape[-1]
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _add_rms_layernorm_inference[(X.numel() // n_cols,)](
        X, R, weight, X.stride(0), R.stride(0), n_cols=n_cols, eps=1e-6, HAS_RESIDUAL=True,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, enable_fp_fusion=False)
    return X, R
'''),
    Adapter(
        "unsloth", "fusion.swiglu", US + "swiglu.py", ("_fg_kernel",),
        notes="swiglu_fg_kernel on the gate/up halves (made contiguous: the package gets "
              "them as separate tensors); silu rounded to the input dtype before the product",
        glue=_US_ELEMENTWISE + '''

def run(x):
    e, g = _halves(x)
    return _elementwise(_fg_kernel, e, g)
'''),
    Adapter(
        "unsloth", "fusion.swiglu_backward", US + "swiglu.py", ("_DWf_DW_dfg_kernel",),
        glue=_US_ELEMENTWISE + '''

def run(x, grad_out):
    return _backward(_DWf_DW_dfg_kernel, x, grad_out)
'''),
    Adapter(
        "unsloth", "fusion.geglu", US + "geglu.py", ("_exact_forward_kernel",),
        glue=_US_ELEMENTWISE + '''

def run(x):
    e, g = _halves(x)
    return _elementwise(_exact_forward_kernel, e, g)
'''),
    Adapter(
        "unsloth", "fusion.geglu_backward", US + "geglu.py", ("_exact_backward_kernel",),
        glue=_US_ELEMENTWISE + '''

def run(x, grad_out):
    return _backward(_exact_backward_kernel, x, grad_out)
'''),
    Adapter(
        "unsloth", "activation.gelu_tanh_and_mul", US + "geglu.py", ("_approx_forward_kernel",),
        imports=_US_LIBDEVICE, prelude=_US_TANH,
        notes="triton_tanh = libdevice.tanh, as unsloth.kernels.utils sets it on Triton >= 3",
        glue=_US_ELEMENTWISE + '''

def run(x):
    e, g = _halves(x)
    return _elementwise(_approx_forward_kernel, e, g)
'''),
    Adapter(
        "unsloth", "normalization.layer_norm", US + "layernorm.py", ("layernorm_forward",),
        prelude=_US_SETTINGS,
        notes="Fp32LayerNorm forward, one row per program",
        glue='''
def run(x, weight, bias):
    X = x.contiguous()
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    r = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    mu = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    layernorm_forward[(n_rows,)](Y, X, weight, bias, r, mu, Y.stride(0), X.stride(0), n_cols,
                                 1e-5, LONG_INDEXING=0, BLOCK_SIZE=BLOCK_SIZE,
                                 num_warps=num_warps)
    return Y
'''),
    Adapter(
        "unsloth", "loss.cross_entropy_per_token", US + "cross_entropy_loss.py",
        ("_log1p", "_softplus", "_cross_entropy_forward"),
        imports=_US_LIBDEVICE, prelude=_US_TANH,
        notes="Fast_CrossEntropyLoss.forward, vocab <= 65536 path (one row per program, "
              "BLOCK_SIZE = next_power_of_2(V)); the package jit-wraps the kernel by assignment "
              "(`_cross_entropy_forward = triton.jit(_cross_entropy_forward)`)",
        glue=_US_SETTINGS + '''

def run(logits, target):
    n_rows, vocab_size = logits.shape
    logits = logits.contiguous()
    losses = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
    logsumexp = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
    BLOCK_SIZE, num_warps = calculate_settings(vocab_size)
    _cross_entropy_forward[(n_rows,)](
        logits, logits.stride(0), losses, logsumexp, target, VOCAB_SIZE=vocab_size,
        BLOCK_SIZE=BLOCK_SIZE, DO_SOFTCAPPING=False, SOFTCAP=0, DO_LOGIT_SCALING=False,
        LOGIT_SCALE=0, num_warps=num_warps)
    return losses
'''),
)


# ---------------------------------------------------------------------------------------------
# flash-linear-attention (fla-core 0.6.0): fla/modules and fla/ops/utils
# ---------------------------------------------------------------------------------------------
FLA_ACT = "fla/modules/activations/ops.py"
FLA_OP = ("fla/ops/utils/op.py", ("exp!else", "log!else"))
_FLA_PRELUDE = '''
IS_AMD = False
IS_INTEL = False
autotune_cache_kwargs = {}  # fla.utils: {"cache_results": ...} where Triton supports it
'''
_FLA_ACT_PRELUDE = _FLA_PRELUDE + '''

def _activation_autotune_configs():
    bs_list = [512, 1024, 2048, 4096, 8192]
    nw_list = [1, 2, 4, 8, 16, 32]
    return [triton.Config({'B': bs}, num_warps=nw) for bs in bs_list for nw in nw_list]
'''
_FLA_ACT_GLUE = '''
def prepare_input(x):
    # fla.modules.activations.ops.prepare_input for 2-D inputs: read rows in place when the
    # last dimension is unit-stride, else copy
    if x.is_contiguous():
        return x, x.shape[-1]
    if x.shape[-1] > 1 and x.stride(-1) != 1:
        return x.contiguous(), x.shape[-1]
    return x, x.stride(0)


def _unary(kernel, x):
    x, stride_x_row = prepare_input(x)
    T, D = x.numel(), x.shape[-1]
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    kernel[lambda meta: (triton.cdiv(T, meta['B']),)](x=x, y=y, stride_x_row=stride_x_row,
                                                      stride_y_row=D, T=T, D=D)
    return y


def _unary_bwd(kernel, x, dy):
    x, stride_x_row = prepare_input(x)
    dy, stride_dy_row = prepare_input(dy)
    T, D = x.numel(), x.shape[-1]
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    kernel[lambda meta: (triton.cdiv(T, meta['B']),)](x=x, dy=dy, dx=dx,
                                                      stride_x_row=stride_x_row,
                                                      stride_dy_row=stride_dy_row,
                                                      stride_dx_row=D, T=T, D=D)
    return dx
'''
_FLA_LN_GLUE = '''
def layer_norm_fwd(x, weight, bias, eps, residual=None, is_rms_norm=False, store_res=False):
    # fla.modules.norm.layernorm.layer_norm_fwd (num_groups = 1)
    T, D = x.shape
    G = 1
    y = torch.empty_like(x)
    res_out = torch.empty(T, D, device=x.device, dtype=x.dtype) if store_res else None
    mean = torch.empty((T,), dtype=torch.float, device=x.device) if not is_rms_norm else None
    rstd = torch.empty((T,), dtype=torch.float, device=x.device)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BD = min(MAX_FUSED_SIZE, triton.next_power_of_2(D))
    if D > BD:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    if D <= 512:
        NB = triton.cdiv(T, 2048)

        def grid(meta):
            return (triton.cdiv(T, meta['BT']),)

        layer_norm_fwd_kernel[grid](
            x=x, y=y, w=weight, b=bias, res=residual, res_out=res_out, mean=mean, rstd=rstd,
            eps=eps, T=T, G=G, D=D, BD=BD, NB=NB, IS_RMS_NORM=is_rms_norm,
            HAS_RESIDUAL=residual is not None, STORE_RESIDUAL_OUT=res_out is not None,
            HAS_WEIGHT=weight is not None, HAS_BIAS=bias is not None)
    else:
        layer_norm_fwd_kernel_row[(T,)](
            x=x, y=y, w=weight, b=bias, res=residual, res_out=res_out, mean=mean, rstd=rstd,
            eps=eps, G=G, D=D, BD=BD, IS_RMS_NORM=is_rms_norm,
            HAS_RESIDUAL=residual is not None, STORE_RESIDUAL_OUT=res_out is not None,
            HAS_WEIGHT=weight is not None, HAS_BIAS=bias is not None)
    return y, res_out
'''
FLA_LN = "fla/modules/norm/layernorm.py"
FLA_L2 = "fla/modules/norm/l2norm.py"
_FLA_L2_GLUE = '''
def l2norm_fwd(x, eps):
    # fla.modules.norm.l2norm.l2norm_fwd
    y = torch.empty_like(x)
    T, D = x.shape[0], x.shape[-1]
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BD = min(MAX_FUSED_SIZE, triton.next_power_of_2(D))
    if D > BD:
        raise RuntimeError("This layer doesn't support feature dim >= 64KB.")
    rstd = torch.empty((T,), dtype=torch.float32, device=x.device)
    if D <= 512:
        NB = triton.cdiv(T, 2048 * 32)

        def grid(meta):
            return (triton.cdiv(T, meta["BT"]),)

        l2norm_fwd_kernel[grid](x=x, y=y, rstd=rstd, eps=eps, T=T, D=D, BD=BD, NB=NB)
    else:
        l2norm_fwd_kernel_row[(T,)](x=x, y=y, rstd=rstd, eps=eps, D=D, BD=BD)
    return y, rstd


# The task clamps the norm at 1e-12 (F.normalize); fla adds eps under the square root:
# 1 / sqrt(sum + 1e-24) is the same clamp for an all-zero row and no change otherwise.
EPS = 1e-24
'''
_FLA_L2_PRELUDE = _FLA_PRELUDE + '''
fla_cache_autotune = triton.autotune  # fla.ops.utils.cache: triton.autotune with a disk cache
BT_LIST = [8, 16, 32, 64, 128]
NUM_WARPS_AUTOTUNE = [1, 2, 4, 8, 16, 32]
'''
add(
    Adapter("fla", "activation.sigmoid", FLA_ACT, ("sigmoid_fwd_kernel",),
            prelude=_FLA_ACT_PRELUDE, glue=_FLA_ACT_GLUE + '''

def run(x):
    return _unary(sigmoid_fwd_kernel, x)
'''),
    Adapter("fla", "activation.sigmoid_backward", FLA_ACT, ("sigmoid_bwd_kernel",),
            prelude=_FLA_ACT_PRELUDE, glue=_FLA_ACT_GLUE + '''

def run(x, grad_out):
    return _unary_bwd(sigmoid_bwd_kernel, x, grad_out)
'''),
    Adapter("fla", "activation.silu", FLA_ACT, ("swish_fwd_kernel",),
            prelude=_FLA_ACT_PRELUDE, glue=_FLA_ACT_GLUE + '''

def run(x):
    return _unary(swish_fwd_kernel, x)
'''),
    Adapter("fla", "activation.silu_backward", FLA_ACT, ("swish_bwd_kernel",),
            prelude=_FLA_ACT_PRELUDE, glue=_FLA_ACT_GLUE + '''

def run(x, grad_out):
    return _unary_bwd(swish_bwd_kernel, x, grad_out)
'''),
    Adapter("fla", "activation.logsigmoid", FLA_ACT, ("logsigmoid_fwd_kernel",),
            helpers=(FLA_OP,), prelude=_FLA_ACT_PRELUDE,
            notes="temperature = 1; exp/log are fla.ops.utils.op's default (non fast-math) "
                  "helpers",
            glue=_FLA_ACT_GLUE + '''

def run(x):
    x, stride_x_row = prepare_input(x)
    T, D = x.numel(), x.shape[-1]
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    logsigmoid_fwd_kernel[lambda meta: (triton.cdiv(T, meta['B']),)](
        x=x, y=y, stride_x_row=stride_x_row, stride_y_row=D, temperature=1.0, T=T, D=D)
    return y
'''),
    Adapter("fla", "activation.silu_and_mul", FLA_ACT, ("swiglu_fwd_kernel",),
            prelude=_FLA_ACT_PRELUDE,
            notes="swiglu_fwd(x, y) on the two halves of the row (read in place through the "
                  "row stride, as fla's prepare_input does)",
            glue=_FLA_ACT_GLUE + '''

def run(x):
    n = x.shape[1] // 2
    a, stride_a = prepare_input(x[:, :n])
    b, stride_b = prepare_input(x[:, n:])
    T, D = a.numel(), n
    z = torch.empty((x.shape[0], n), dtype=x.dtype, device=x.device)
    swiglu_fwd_kernel[lambda meta: (triton.cdiv(T, meta['B']),)](
        x=a, y=b, z=z, stride_x_row=stride_a, stride_y_row=stride_b, stride_z_row=D, T=T, D=D)
    return z
'''),
    Adapter("fla", "activation.silu_and_mul_backward", FLA_ACT, ("swiglu_fwdbwd_kernel",),
            prelude=_FLA_ACT_PRELUDE,
            notes="swiglu_fwdbwd without the recomputed output; dx and dy are written through "
                  "their row stride into the two halves of one [M, 2N] tensor",
            glue=_FLA_ACT_GLUE + '''

def run(x, grad_out):
    n = x.shape[1] // 2
    a, stride_a = prepare_input(x[:, :n])
    b, stride_b = prepare_input(x[:, n:])
    g, stride_g = prepare_input(grad_out)
    T, D = a.numel(), n
    dx = torch.empty((x.shape[0], 2 * n), dtype=x.dtype, device=x.device)
    swiglu_fwdbwd_kernel[lambda meta: (triton.cdiv(T, meta['B']),)](
        x=a, y=b, g=g, dx=dx[:, :n], dy=dx[:, n:], z=None, stride_x_row=stride_a,
        stride_y_row=stride_b, stride_g_row=stride_g, stride_dx_row=2 * n,
        stride_dy_row=2 * n, stride_z_row=0, T=T, D=D)
    return dx
'''),
    Adapter("fla", "normalization.layer_norm", FLA_LN,
            ("layer_norm_fwd_kernel", "layer_norm_fwd_kernel_row"), prelude=_FLA_PRELUDE,
            notes="layer_norm_fwd: the BT-rows kernel for D <= 512, the one-row kernel above",
            glue=_FLA_LN_GLUE + '''

def run(x, weight, bias):
    return layer_norm_fwd(x.contiguous(), weight, bias, 1e-5)[0]
'''),
    Adapter("fla", "normalization.rms_norm", FLA_LN,
            ("layer_norm_fwd_kernel", "layer_norm_fwd_kernel_row"), prelude=_FLA_PRELUDE,
            notes="layer_norm_fwd with is_rms_norm=True (fla's rms_norm)",
            glue=_FLA_LN_GLUE + '''

def run(x, weight):
    return layer_norm_fwd(x.contiguous(), weight, None, 1e-6, is_rms_norm=True)[0]
'''),
    Adapter("fla", "normalization.fused_add_rms_norm", FLA_LN,
            ("layer_norm_fwd_kernel", "layer_norm_fwd_kernel_row"), prelude=_FLA_PRELUDE,
            notes="rms_norm with residual and prenorm (residual_out); normalizes the float32 "
                  "sum, not the sum rounded to the input dtype",
            glue=_FLA_LN_GLUE + '''

def run(x, residual, weight):
    y, res = layer_norm_fwd(x, weight, None, 1e-6, residual=residual, is_rms_norm=True,
                            store_res=True)
    return y, res
'''),
    Adapter("fla", "normalization.layer_norm_no_affine", FLA_LN,
            ("layer_norm_fwd_kernel", "layer_norm_fwd_kernel_row"), prelude=_FLA_PRELUDE,
            notes="LayerNorm(elementwise_affine=False): weight and bias None",
            glue=_FLA_LN_GLUE + '''

def run(x):
    B, S, D = x.shape
    y = layer_norm_fwd(x.contiguous().view(B * S, D), None, None, 1e-5)[0]
    return y.view(B, S, D)
'''),
    Adapter("fla", "normalization.l2_normalize", FLA_L2,
            ("l2norm_fwd_kernel_row", "l2norm_fwd_kernel"), prelude=_FLA_L2_PRELUDE,
            keep_decorators=("fla_cache_autotune",),
            notes="l2norm_fwd (BT-rows kernel for D <= 512); eps 1e-24 under the square root "
                  "for F.normalize's 1e-12 clamp on the norm",
            glue=_FLA_L2_GLUE + '''

def run(x):
    return l2norm_fwd(x.contiguous(), EPS)[0]
'''),
    Adapter("fla", "normalization.l2_normalize_backward", FLA_L2,
            ("l2norm_fwd_kernel_row", "l2norm_fwd_kernel", "l2norm_bwd_kernel_row",
             "l2norm_bwd_kernel"), prelude=_FLA_L2_PRELUDE,
            keep_decorators=("fla_cache_autotune",),
            notes="forward first (y and rstd are what L2NormFunction saves), then l2norm_bwd",
            glue=_FLA_L2_GLUE + '''

def run(x, grad_out):
    y, rstd = l2norm_fwd(x.contiguous(), EPS)
    dy = grad_out.contiguous()
    dx = torch.empty_like(y)
    T, D = y.shape[0], y.shape[-1]
    MAX_FUSED_SIZE = 65536 // y.element_size()
    BD = min(MAX_FUSED_SIZE, triton.next_power_of_2(D))
    if D <= 512:
        NB = triton.cdiv(T, 2048 * 32)

        def grid(meta):
            return (triton.cdiv(T, meta["BT"]),)

        l2norm_bwd_kernel[grid](y=y, rstd=rstd, dy=dy, dx=dx, eps=EPS, T=T, D=D, BD=BD, NB=NB)
    else:
        l2norm_bwd_kernel_row[(T,)](y=y, rstd=rstd, dy=dy, dx=dx, eps=EPS, D=D, BD=BD)
    return dx
'''),
    Adapter("fla", "normalization.softmax", "fla/ops/utils/softmax.py", ("softmax_fwd_kernel",),
            helpers=(("fla/ops/utils/op.py", ("exp!else",)),),
            prelude=_FLA_PRELUDE + "NUM_WARPS_AUTOTUNE = [1, 2, 4, 8, 16, 32]\n",
            notes="softmax_fwd(x, dtype=x.dtype); x - max is taken in the input dtype",
            glue='''
def run(x):
    x = x.contiguous()
    N, D = x.shape
    B = triton.next_power_of_2(D)
    p = torch.empty_like(x)
    softmax_fwd_kernel[(N,)](x=x, p=p, D=D, B=B)
    return p
'''),
    Adapter("fla", "normalization.softmax_backward", "fla/ops/utils/softmax.py",
            ("softmax_bwd_kernel",),
            prelude=_FLA_PRELUDE + "NUM_WARPS_AUTOTUNE = [1, 2, 4, 8, 16, 32]\n",
            notes="softmax_bwd(p, dp, dtype=p.dtype); products in the input dtype",
            glue='''
def run(y, grad_out):
    p = y.contiguous()
    dp = grad_out.contiguous()
    N, D = p.shape
    B = triton.next_power_of_2(D)
    ds = torch.empty_like(p)
    softmax_bwd_kernel[(N,)](p=p, dp=dp, ds=ds, D=D, B=B)
    return ds
'''),
    Adapter("fla", "reduce.logsumexp_rows", "fla/ops/utils/logsumexp.py",
            ("logsumexp_fwd_kernel",), helpers=(FLA_OP,), prelude=_FLA_PRELUDE,
            notes="logsumexp_fwd(x, dtype=x.dtype): one block per row up to 64K columns (the "
                  "package combines several blocks with torch.logsumexp on the host; every "
                  "CPU shape fits one block)",
            glue='''
def run(x):
    x = x.contiguous()
    N, D = x.shape
    B = min(triton.next_power_of_2(D), 64 * 1024)
    ND = triton.cdiv(D, B)
    assert ND == 1, "rows longer than 64K need the package's host-side torch.logsumexp"
    # one block per row: the kernel's store rounds to x's dtype once, as the package's host
    # `.to(dtype)` of the float result does (a host narrowing copy is compute: D206)
    z = torch.empty((N, ND), dtype=x.dtype, device=x.device)
    logsumexp_fwd_kernel[(N, ND)](x=x, z=z, scale=None, D=D, B=B)
    return z.view(N)
'''),
)


# ---------------------------------------------------------------------------------------------
# vllm 0.33.0
# ---------------------------------------------------------------------------------------------
VB = "vllm/model_executor/determinism/batch_invariant.py"
VI8 = "vllm/model_executor/layers/quantization/utils/int8_utils.py"
_VB_CONFIGS = '''
# batch_invariant.py's launch configs with its module defaults (_fp16_block_size_n = 256,
# _fp32_block_size_n = 128, _fp32_num_stages = 3: what _resolve_block_sizes keeps when the
# device is not CUDA-like); _get_matmul_config returns them unless a tuned bf16 table exists
def _configs(N, dtype, group=True):
    configs = {
        torch.bfloat16: {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                         "GROUP_SIZE_M": 8, "num_stages": 3, "num_warps": 8},
        torch.float16: {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
                        "GROUP_SIZE_M": 8, "num_stages": 3, "num_warps": 8},
        torch.float32: {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32,
                        "GROUP_SIZE_M": 8, "num_stages": 3, "num_warps": 8},
    }
    cfg = dict(configs[dtype])
    if not group:
        del cfg["GROUP_SIZE_M"]
    return cfg
'''
add(
    Adapter("vllm", "normalization.softmax", VB, ("_softmax_kernel",),
            notes="batch-invariant softmax: one program per row, BLOCK_SIZE 1024, reads x "
                  "through both strides (no copy)",
            glue='''
def run(x):
    n_rows, n_cols = x.shape
    output = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    _softmax_kernel[(n_rows,)](x, output, x.stride(0), x.stride(1), output.stride(0), n_cols,
                               BLOCK_SIZE=1024)
    return output
'''),
    Adapter("vllm", "normalization.log_softmax", VB, ("_softmax_kernel",),
            notes="batch-invariant log_softmax (the same kernel with LOG=True)",
            glue='''
def run(x):
    n_rows, n_cols = x.shape
    output = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    _softmax_kernel[(n_rows,)](x, output, x.stride(0), x.stride(1), output.stride(0), n_cols,
                               BLOCK_SIZE=1024, LOG=True)
    return output
'''),
    Adapter("vllm", "normalization.rms_norm", VB, ("_rms_norm_kernel",),
            notes="rms_norm_batch_invariant: BLOCK_SIZE 1024, loop over the row",
            glue='''
def run(x, weight):
    input_2d = x.contiguous()
    n_rows, n_cols = input_2d.shape
    output = torch.empty_like(input_2d)
    _rms_norm_kernel[(n_rows,)](input_2d, weight, output, input_2d.stride(0), output.stride(0),
                                n_cols, 1e-6, BLOCK_SIZE=1024, HAS_WEIGHT=True)
    return output
'''),
    Adapter("vllm", "reduce.mean_rows", VB, ("mean_kernel",),
            notes="mean_dim(x, dim=1): the input seen as [M, N, 1], strides passed through",
            glue='''
def run(x):
    M, N = x.shape
    K = 1
    input_3d = x.unsqueeze(2)
    output = torch.empty((M,), dtype=x.dtype, device=x.device)
    output_2d = output.reshape(M, K)
    mean_kernel[(M * K,)](input_3d, output_2d, input_3d.stride(0), input_3d.stride(1),
                          input_3d.stride(2), output_2d.stride(0), output_2d.stride(1), M, N, K,
                          1024)
    return output
'''),
    Adapter("vllm", "matmul.matmul", VB,
            ("_matmul_launch_metadata", "_compute_pid", "matmul_kernel_persistent"),
            imports="from typing import Any, Callable",
            notes="matmul_persistent, 132 persistent programs (an H100's SM count: the "
                  "package queries the device); fp32 goes through tl.dot's default (TF32 on "
                  "a GPU, exact in the interpreter); keeps the package's profiler hook "
                  "@triton.jit(launch_metadata=_matmul_launch_metadata)",
            glue=_VB_CONFIGS + '''

def run(a, b):
    NUM_SMS = 132
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)

    def grid(META):
        return (min(NUM_SMS, triton.cdiv(M, META["BLOCK_SIZE_M"])
                    * triton.cdiv(N, META["BLOCK_SIZE_N"])),)

    matmul_kernel_persistent[grid](
        a, b, c, None, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.stride(0), c.stride(1), 1, NUM_SMS=NUM_SMS, A_LARGE=a.numel() > 2**31,
        B_LARGE=b.numel() > 2**31, C_LARGE=c.numel() > 2**31, HAS_BIAS=False,
        **_configs(N, a.dtype))
    return c
'''),
    Adapter("vllm", "matmul.bmm", VB, ("bmm_kernel",),
            notes="bmm_batch_invariant: grid (B, tiles)",
            glue=_VB_CONFIGS + '''

def run(a, b):
    B, M, K = a.shape
    _, _, N = b.shape
    c = torch.empty((B, M, N), device=a.device, dtype=a.dtype)
    cfg = _configs(N, a.dtype, group=False)
    grid = (B, triton.cdiv(M, cfg["BLOCK_SIZE_M"]) * triton.cdiv(N, cfg["BLOCK_SIZE_N"]))
    bmm_kernel[grid](a, b, c, B, M, N, K, a.stride(0), a.stride(1), a.stride(2), b.stride(0),
                     b.stride(1), b.stride(2), c.stride(0), c.stride(1), c.stride(2),
                     A_LARGE=a.numel() > 2**31, B_LARGE=b.numel() > 2**31,
                     C_LARGE=c.numel() > 2**31, **cfg)
    return c
'''),
    Adapter("vllm", "quantization.per_token_int8", VI8, ("round_int8!else", "_per_token_quant_int8"),
            notes="per_token_quant_int8 (CUDA branch of round_int8: libdevice.round, half away "
                  "from zero; absmax floored at 1e-10)",
            glue='''
def run(x):
    M, N = x.shape
    x_q = torch.empty((M, N), device=x.device, dtype=torch.int8)
    scales = torch.empty((M, 1), device=x.device, dtype=torch.float32)
    BLOCK = triton.next_power_of_2(N)
    num_warps = min(max(BLOCK // 256, 1), 8)
    x = x.contiguous()
    _per_token_quant_int8[(M,)](x, x_q, scales, stride_x=x.stride(-2),
                                stride_xq=x_q.stride(-2), N=N, BLOCK=BLOCK,
                                num_warps=num_warps, num_stages=1)
    return x_q, scales
'''),
    Adapter("vllm", "quantization.per_group_int8", VI8, ("_per_token_group_quant_int8",),
            unfit="the Triton fallback of per_token_group_quant_int8 clamps and casts "
                  "(.to(int8) truncates toward zero) without rounding; the task rounds half "
                  "to even (CUDA builds use a C++ op instead)"),
)


# ---------------------------------------------------------------------------------------------
# sglang 0.5.23
# ---------------------------------------------------------------------------------------------
SB = "sglang/srt/batch_invariant_ops/batch_invariant_ops.py"
_SB_CONFIGS = '''
def _configs(dtype):
    # batch_invariant_ops.py's per-dtype launch configs
    return {
        torch.bfloat16: {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                         "GROUP_SIZE_M": 8, "num_stages": 3, "num_warps": 8},
        torch.float16: {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
                        "GROUP_SIZE_M": 8, "num_stages": 3, "num_warps": 8},
        torch.float32: {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32,
                        "GROUP_SIZE_M": 8, "num_stages": 3, "num_warps": 8},
    }[dtype]


NUM_SMS = 132  # get_device_core_count() on an H100
'''
SQ = "sglang/kernels/ops/quantization/int8_kernel.py"
SG = "sglang/kernels/ops/layernorm/minimax_m3_rmsnorm.py"
_SG_WARPS = '''
def _num_warps(block_n):
    # minimax_m3_rmsnorm._num_warps
    if block_n >= 4096:
        return 16
    if block_n >= 1024:
        return 8
    return 4
'''
add(
    Adapter("sglang", "normalization.log_softmax", SB, ("_log_softmax_kernel",),
            notes="batch-invariant log_softmax: BLOCK_SIZE 1024, input made contiguous as "
                  "the package does",
            glue='''
def run(x):
    input_2d = x.contiguous()
    n_rows, n_cols = input_2d.shape
    output = torch.empty_like(input_2d)
    _log_softmax_kernel[(n_rows,)](input_2d, output, input_2d.stride(0), output.stride(0),
                                   n_cols, BLOCK_SIZE=1024)
    return output
'''),
    Adapter("sglang", "normalization.rms_norm", SB, ("_rms_norm_kernel",),
            glue='''
def run(x, weight):
    input_2d = x.contiguous()
    n_rows, n_cols = input_2d.shape
    output = torch.empty_like(input_2d)
    _rms_norm_kernel[(n_rows,)](input_2d, weight, output, input_2d.stride(0), output.stride(0),
                                n_cols, 1e-6, BLOCK_SIZE=1024)
    return output
'''),
    Adapter("sglang", "reduce.mean_rows", SB, ("mean_kernel",),
            glue='''
def run(x):
    M, N = x.shape
    K = 1
    input_3d = x.reshape(M, N, K)
    output = torch.empty((M,), dtype=x.dtype, device=x.device)
    output_2d = output.reshape(M, K)
    mean_kernel[(M * K,)](input_3d, output_2d, input_3d.stride(0), input_3d.stride(1),
                          input_3d.stride(2), output_2d.stride(0), output_2d.stride(1), M, N, K,
                          1024)
    return output
'''),
    Adapter("sglang", "matmul.matmul", SB,
            ("_matmul_launch_metadata", "_compute_pid", "matmul_kernel_persistent"),
            imports="from typing import Any, Callable, Dict",
            notes="_matmul_persistent_triton with 132 persistent programs; keeps the "
                  "package's @triton.jit(launch_metadata=_matmul_launch_metadata)",
            glue=_SB_CONFIGS + '''

def run(a, b):
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)

    def grid(META):
        return (min(NUM_SMS, triton.cdiv(M, META["BLOCK_SIZE_M"])
                    * triton.cdiv(N, META["BLOCK_SIZE_N"])),)

    matmul_kernel_persistent[grid](
        a, b, c, None, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.stride(0), c.stride(1), NUM_SMS=NUM_SMS, A_LARGE=a.numel() > 2**31,
        B_LARGE=b.numel() > 2**31, C_LARGE=c.numel() > 2**31, HAS_BIAS=False,
        **_configs(a.dtype))
    return c
'''),
    Adapter("sglang", "matmul.bmm", SB, ("_compute_pid", "bmm_kernel_persistent"),
            notes="bmm_batch_invariant: persistent, min(132, tiles) programs",
            glue=_SB_CONFIGS + '''

def run(a, b):
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), device=a.device, dtype=a.dtype)
    config = _configs(a.dtype)
    num_tiles_per_batch = (triton.cdiv(M, config["BLOCK_SIZE_M"])
                           * triton.cdiv(N, config["BLOCK_SIZE_N"]))
    grid = (min(NUM_SMS, B * num_tiles_per_batch),)
    bmm_kernel_persistent[grid](
        a, b, c, B, M, N, K, a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1),
        b.stride(2), c.stride(0), c.stride(1), c.stride(2), NUM_SMS=NUM_SMS,
        A_LARGE=a.numel() > 2**31, B_LARGE=b.numel() > 2**31, C_LARGE=c.numel() > 2**31,
        **config)
    return c
'''),
    Adapter("sglang", "quantization.per_token_int8", SQ, ("_per_token_quant_int8",),
            imports="from triton.language.extra import libdevice",
            notes="per_token_quant_int8 on CUDA (IS_HIP=False: tl.extra.cuda.libdevice.round)",
            glue='''
def run(x):
    x = x.contiguous()
    M, N = x.shape
    x_q = torch.empty_like(x, device=x.device, dtype=torch.int8)
    scales = torch.empty((M, 1), device=x.device, dtype=torch.float32)
    BLOCK = triton.next_power_of_2(N)
    num_warps = min(max(BLOCK // 256, 1), 8)
    _per_token_quant_int8[(M,)](x, x_q, scales, None, stride_x=x.stride(-2),
                                stride_xq=x_q.stride(-2), N=N, CAL_SUM=False, BLOCK=BLOCK,
                                IS_HIP=False, num_warps=num_warps, num_stages=1)
    return x_q, scales
'''),
    Adapter("sglang", "quantization.per_group_int8", SQ, ("_per_token_group_quant_int8",),
            unfit="per_token_group_quant_int8 clamps and casts (.to(int8) truncates toward "
                  "zero) without rounding, although the task's description cites it as the "
                  "reference for its round-half-to-even contract"),
    Adapter("sglang", "activation.gelu_and_mul",
            "sglang/kernels/ops/activation/gelu_and_mul_triton.py", ("gelu_and_mul_kernel",),
            notes="gelu_and_mul_triton without quantization (erf GELU rounded to the input "
                  "dtype before the product)",
            glue='''
def run(x):
    hidden_states = x.contiguous()
    bs, in_hidden_dim = hidden_states.shape
    hidden_dim = in_hidden_dim // 2
    out = torch.empty((bs, hidden_dim), dtype=x.dtype, device=x.device)
    num_warps = max(min(triton.next_power_of_2(triton.cdiv(hidden_dim, 8 * 32)), 32), 4)
    gelu_and_mul_kernel[(bs,)](out, None, hidden_states, quant_max=None, static_scale=False,
                               hidden_dim=hidden_dim,
                               BLOCK_SIZE=triton.next_power_of_2(hidden_dim),
                               num_warps=num_warps)
    return out
'''),
    Adapter("sglang", "normalization.gemma_rms_norm", SG, ("_gemma_rmsnorm_kernel",),
            notes="MiniMax-M3 Gemma RMSNorm (ROCm path), reads x through both strides",
            glue=_SG_WARPS + '''

def run(x, weight):
    m, n = x.shape
    out = torch.empty((m, n), dtype=x.dtype, device=x.device)
    block_n = triton.next_power_of_2(n)
    _gemma_rmsnorm_kernel[(m,)](x, weight, out, n, x.stride(0), x.stride(1), 1e-6,
                                BLOCK_N=block_n, num_warps=_num_warps(block_n))
    return out
'''),
)


# ---------------------------------------------------------------------------------------------
# The same package kernels adapted to a second task (a second (kernel, task) pair each)
# ---------------------------------------------------------------------------------------------
add(
    Adapter("unsloth", "activation.silu_and_mul", US + "swiglu.py", ("_fg_kernel",),
            notes="swiglu_fg_kernel again, on the (possibly strided) fused input",
            glue=_US_ELEMENTWISE + '''

def run(x):
    e, g = _halves(x)
    return _elementwise(_fg_kernel, e, g)
'''),
    Adapter("unsloth", "activation.gelu_and_mul", US + "geglu.py", ("_exact_forward_kernel",),
            glue=_US_ELEMENTWISE + '''

def run(x):
    e, g = _halves(x)
    return _elementwise(_exact_forward_kernel, e, g)
'''),
    Adapter("unsloth", "fusion.add_rms_norm", US + "fused_add_rms_layernorm.py",
            ("_add_rms_layernorm_inference",), prelude=_US_SETTINGS,
            glue='''
def run(x, residual, weight):
    X = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    X.copy_(x)
    R = torch.empty(residual.shape, dtype=residual.dtype, device=residual.device)
    R.copy_(residual)
    n_cols = X.shape[-1]
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _add_rms_layernorm_inference[(X.numel() // n_cols,)](
        X, R, weight, X.stride(0), R.stride(0), n_cols=n_cols, eps=1e-6, HAS_RESIDUAL=True,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, enable_fp_fusion=False)
    return X, R
'''),
    Adapter("fla", "fusion.swiglu", FLA_ACT, ("swiglu_fwd_kernel",), prelude=_FLA_ACT_PRELUDE,
            glue=_FLA_ACT_GLUE + '''

def run(x):
    n = x.shape[1] // 2
    a, stride_a = prepare_input(x[:, :n])
    b, stride_b = prepare_input(x[:, n:])
    T, D = a.numel(), n
    z = torch.empty((x.shape[0], n), dtype=x.dtype, device=x.device)
    swiglu_fwd_kernel[lambda meta: (triton.cdiv(T, meta['B']),)](
        x=a, y=b, z=z, stride_x_row=stride_a, stride_y_row=stride_b, stride_z_row=D, T=T, D=D)
    return z
'''),
    Adapter("fla", "fusion.swiglu_backward", FLA_ACT, ("swiglu_fwdbwd_kernel",),
            prelude=_FLA_ACT_PRELUDE, glue=_FLA_ACT_GLUE + '''

def run(x, grad_out):
    n = x.shape[1] // 2
    a, stride_a = prepare_input(x[:, :n])
    b, stride_b = prepare_input(x[:, n:])
    g, stride_g = prepare_input(grad_out)
    T, D = a.numel(), n
    dx = torch.empty((x.shape[0], 2 * n), dtype=x.dtype, device=x.device)
    swiglu_fwdbwd_kernel[lambda meta: (triton.cdiv(T, meta['B']),)](
        x=a, y=b, g=g, dx=dx[:, :n], dy=dx[:, n:], z=None, stride_x_row=stride_a,
        stride_y_row=stride_b, stride_g_row=stride_g, stride_dx_row=2 * n,
        stride_dy_row=2 * n, stride_z_row=0, T=T, D=D)
    return dx
'''),
    Adapter("fla", "fusion.add_rms_norm", FLA_LN,
            ("layer_norm_fwd_kernel", "layer_norm_fwd_kernel_row"), prelude=_FLA_PRELUDE,
            glue=_FLA_LN_GLUE + '''

def run(x, residual, weight):
    y, res = layer_norm_fwd(x, weight, None, 1e-6, residual=residual, is_rms_norm=True,
                            store_res=True)
    return y, res
'''),
    Adapter("sglang", "fusion.add_rms_norm", SG, ("_gemma_fused_add_rmsnorm_kernel",),
            unfit="Gemma's (1 + weight) scale: no task has a fused residual add with a "
                  "Gemma RMSNorm"),
)
add(
    Adapter("fla", "fusion.residual_add_layer_norm", FLA_LN,
            ("layer_norm_fwd_kernel", "layer_norm_fwd_kernel_row"), prelude=_FLA_PRELUDE,
            notes="layer_norm with residual and prenorm; normalizes the float32 sum",
            glue=_FLA_LN_GLUE + '''

def run(x, residual, weight, bias):
    y, res = layer_norm_fwd(x, weight, bias, 1e-5, residual=residual, store_res=True)
    return y, res
'''),
    Adapter("sglang", "fusion.geglu", "sglang/kernels/ops/activation/gelu_and_mul_triton.py",
            ("gelu_and_mul_kernel",),
            glue='''
def run(x):
    bs, in_hidden_dim = x.shape
    hidden_dim = in_hidden_dim // 2
    out = torch.empty((bs, hidden_dim), dtype=x.dtype, device=x.device)
    num_warps = max(min(triton.next_power_of_2(triton.cdiv(hidden_dim, 8 * 32)), 32), 4)
    gelu_and_mul_kernel[(bs,)](out, None, x, quant_max=None, static_scale=False,
                               hidden_dim=hidden_dim,
                               BLOCK_SIZE=triton.next_power_of_2(hidden_dim),
                               num_warps=num_warps)
    return out
'''),
    Adapter("sglang", "normalization.rms_norm", "sglang/kernels/ops/layernorm/fused_rmsnorm.py",
            ("fused_rmsnorm_kernel",), variant="2",
            notes="fused_rmsnorm (out of place): one row per program, BLOCK_SIZE = "
                  "next_power_of_2(hidden), warps from the hidden size",
            glue='''
def run(x, weight):
    x = x.contiguous()
    output = torch.empty_like(x)
    bs, hidden_dim = x.shape
    config = {
        "BLOCK_SIZE": triton.next_power_of_2(hidden_dim),
        "num_warps": max(min(triton.next_power_of_2(triton.cdiv(hidden_dim, 256)), 32), 4),
    }
    fused_rmsnorm_kernel[(bs,)](output, x, weight, eps=1e-6, hidden_dim=hidden_dim, **config)
    return output
'''),
    Adapter("sglang", "normalization.rms_norm", "sglang/kernels/ops/layernorm/rmsnorm_fp32.py",
            ("_rmsnorm_fp32_kernel",), variant="3",
            notes="rmsnorm_fp32: out-of-place, fp32 statistics, 4 warps",
            glue='''
def run(x, weight):
    x = x.contiguous()
    output = torch.empty_like(x)
    dim = x.shape[-1]
    rows = x.numel() // dim
    _rmsnorm_fp32_kernel[(rows,)](x, weight, output, dim, 1e-6, triton.next_power_of_2(dim),
                                  num_warps=4, enable_fp_fusion=False)
    return output
'''),
    Adapter("vllm", "normalization.rms_norm", "vllm/models/flint/ops/norm.py",
            ("_rsqrt", "_rms_norm_kernel"), variant="2",
            unfit="Flint's norm is bfloat16-only (stores .to(tl.bfloat16)), needs a power-of-"
                  "two hidden size (tl.arange(0, H)) and uses PTX inline asm (rsqrt.approx), "
                  "which the CPU interpreter cannot run"),
)


# ---------------------------------------------------------------------------------------------
# torchao 0.18.0: its Triton kernels are int8/fp8/mx matmuls and quantizers; none fits a task
# of the suite (whose one quantization task is the float -> int8 per-token quantizer)
# ---------------------------------------------------------------------------------------------
add(
    Adapter("torchao", "matmul.matmul", "torchao/kernel/intmm_triton.py",
            ("matmul_kernel_with_block_pointers",),
            unfit="int_matmul: int8 x int8 with an int32 accumulator and int32 output; the "
                  "suite's matmul tasks are float32/float16/bfloat16 with a float output"),
    Adapter("torchao", "matmul.matmul", "torchao/prototype/quantized_training/int8_mm.py",
            ("_scaled_int8_mm_kernel",),
            unfit="scaled int8 matmul (int8 operands, row/column scales): no task takes "
                  "int8 operands"),
    Adapter("torchao", "quantization.per_token_int8", "torchao/kernel/blockwise_quantization.py",
            ("_fp8_blockwise_act_quant_kernel_impl",),
            unfit="fp8_blockwise_act_quant: float8_e4m3 values with one scale per 1x128 block "
                  "(and defined inside a builder function, not at module level); the task "
                  "quantizes to int8 with one scale per row"),
    Adapter("torchao", "quantization.per_token_int8",
            "torchao/prototype/float8nocompile/kernels/fp8_dynamic_tensorwise.py",
            ("_to_fp8_row_major",),
            unfit="tensor-wise dynamic float8 cast (one scale for the whole tensor, float8 "
                  "output): another quantizer than the task's per-row int8"),
)


# ---------------------------------------------------------------------------------------------
# More kernels of the packages above (fla, vllm) on tasks not yet covered
# ---------------------------------------------------------------------------------------------
FLA_LNG = "fla/modules/norm/layernorm_gated.py"
VROT = "vllm/vllm_flash_attn/ops/triton/rotary.py"
_VROT_GLUE = '''
def apply_rotary(x, cos, sin, seqlen_offsets, interleaved):
    # flash_attn.ops.triton.rotary.apply_rotary (vllm_flash_attn copy), not varlen, out of
    # place: x is (batch, seqlen, nheads, headdim); cos/sin (seqlen_ro, rotary_dim / 2)
    batch, seqlen, nheads, headdim = x.shape
    seqlen_ro, rotary_dim = cos.shape
    rotary_dim *= 2
    assert rotary_dim <= headdim, "rotary_dim must be <= headdim"
    assert headdim <= 256, "Only support headdim <= 256"
    assert seqlen_ro >= seqlen, "seqlen_ro must be >= seqlen"
    cos, sin = cos.contiguous(), sin.contiguous()
    seqlen_offsets = seqlen_offsets.contiguous()
    output = torch.empty((batch, seqlen, nheads, headdim), dtype=x.dtype, device=x.device)
    if rotary_dim < headdim:
        output[..., rotary_dim:].copy_(x[..., rotary_dim:])
    BLOCK_K = (32 if rotary_dim <= 32
               else (64 if rotary_dim <= 64 else (128 if rotary_dim <= 128 else 256)))
    grid = lambda META: (triton.cdiv(seqlen, META["BLOCK_M"]), nheads, batch)  # noqa
    BLOCK_M = 4 if interleaved else (8 if rotary_dim <= 128 else 4)
    rotary_kernel[grid](
        output, x, cos, sin, None, seqlen_offsets, seqlen, rotary_dim, seqlen_ro,
        output.stride(0), output.stride(-3), output.stride(-2), output.stride(-1),
        x.stride(0), x.stride(-3), x.stride(-2), x.stride(-1),
        BLOCK_K, True, False, interleaved, False, BLOCK_M,
        num_warps=2 if rotary_dim <= 64 else 4)
    return output


def _rope(positions, query, key, cos_sin_cache, head_size, interleaved):
    # every token is its own sequence (batch = T, seqlen = 1) whose seqlen_offsets entry is its
    # position: the kernel reads cos/sin row positions[t]; heads are a view of the columns
    T = query.shape[0]
    half = cos_sin_cache.shape[1] // 2
    cos = cos_sin_cache[:, :half]
    sin = cos_sin_cache[:, half:]
    outs = []
    for x in (query, key):
        heads = x.shape[1] // head_size
        y = apply_rotary(x.view(T, 1, heads, head_size), cos, sin, positions, interleaved)
        outs.append(y.view(T, heads * head_size))
    return outs[0], outs[1]
'''
add(
    Adapter("fla", "fusion.gated_rms_norm", FLA_LNG, ("layer_norm_fwd_kernel_group",),
            notes="layernorm_gated's layer_norm_fwd (RMSNormGated: is_rms_norm=True, "
                  "norm_before_gate=False, one group, eps 1e-5): one program per row, BD = "
                  "next_power_of_2(D), warps from BD",
            glue='''
def run(x, z, weight):
    T, D = x.shape
    group_size = D
    G = D // group_size
    out = torch.empty_like(x)
    rstd = torch.empty((G * T,), dtype=torch.float32, device=x.device)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BD = min(MAX_FUSED_SIZE, triton.next_power_of_2(group_size))
    if group_size > BD:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    num_warps = min(max(BD // 256, 1), 8)
    layer_norm_fwd_kernel_group[(T, G)](
        x=x, y=out, w=weight, b=None, g=z, mean=None, rstd=rstd, stride_x_row=x.stride(0),
        stride_y_row=out.stride(0), stride_g_row=z.stride(0), T=T, D=group_size, eps=1e-5,
        BD=BD, NORM_BEFORE_GATE=False, IS_RMS_NORM=True, num_warps=num_warps)
    return out
'''),
    Adapter("vllm", "fusion.gated_rms_norm", "vllm/model_executor/layers/mamba/ops/layernorm_gated.py",
            ("_layer_norm_fwd_1pass_kernel",),
            notes="rms_norm_gated (Mamba-2 RMSNormGated, norm_before_gate=False, one group, "
                  "eps 1e-5): _layer_norm_fwd's one-pass kernel, one program per row",
            glue='''
def run(x, z, weight):
    M, N = x.shape
    group_size = N
    ngroups = N // group_size
    out = torch.empty_like(x)
    rstd = torch.empty((ngroups * M,), dtype=torch.float32, device=x.device)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(group_size))
    if group_size > BLOCK_N:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    num_warps = min(max(BLOCK_N // 256, 1), 8)
    _layer_norm_fwd_1pass_kernel[(M, ngroups)](
        x, out, weight, None, z, None, rstd, x.stride(0), out.stride(0), z.stride(0), M,
        group_size, 1e-5, BLOCK_N=BLOCK_N, NORM_BEFORE_GATE=False, IS_RMS_NORM=True,
        num_warps=num_warps)
    return out
'''),
    Adapter("vllm", "spatial.rotary_embedding_neox", VROT, ("rotary_kernel",),
            notes="flash-attn's rotary kernel (vllm_flash_attn copy), INTERLEAVED=False: each "
                  "token a sequence of length 1 with seqlen_offsets = positions; cos/sin are "
                  "the two halves of the cache made contiguous, kept in float32 (apply_rotary "
                  "asserts cos in x's dtype; the kernel loads them as float32 either way)",
            glue=_VROT_GLUE + '''

def run(positions, query, key, cos_sin_cache):
    return _rope(positions, query, key, cos_sin_cache, cos_sin_cache.shape[1], False)
'''),
    Adapter("vllm", "spatial.rotary_embedding_gptj", VROT, ("rotary_kernel",),
            notes="the same kernel with INTERLEAVED=True and rotary_dim R < head size: the "
                  "tail of every head copied as apply_rotary does",
            glue=_VROT_GLUE + '''

def run(positions, query, key, cos_sin_cache, head_size):
    return _rope(positions, query, key, cos_sin_cache, head_size, True)
'''),
    Adapter("vllm", "activation.swigluoai_and_mul", "vllm/models/minimax_m3/amd/ops/swiglu_oai.py",
            ("_swiglu_oai_kernel",),
            notes="MiniMax-M3's swiglu_oai_split (alpha 1.702, beta 1, limit 7): the kernel "
                  "reads the split layout (gate half, then up half), so the glue copies the "
                  "task's interleaved columns into that layout first; BLOCK_I 512 from "
                  "n_inter >= 2048 else 256, 4 warps",
            glue='''
def run(x):
    M, two_i = x.shape
    n_inter = two_i // 2
    # layout: the task interleaves gate/up columns, the package takes [gate | up]
    x2 = torch.empty((M, two_i), dtype=x.dtype, device=x.device)
    x2[:, :n_inter].copy_(x[:, 0::2])
    x2[:, n_inter:].copy_(x[:, 1::2])
    out = torch.empty((M, n_inter), dtype=x.dtype, device=x.device)
    block_i = 512 if n_inter >= 2048 else 256
    grid = (M, triton.cdiv(n_inter, block_i))
    _swiglu_oai_kernel[grid](x2, out, n_inter, x2.stride(0), x2.stride(1), out.stride(0),
                             out.stride(1), float(1.702), float(1.0), float(7.0),
                             HAS_LIMIT=True, BLOCK_I=block_i, num_warps=4)
    return out
'''),
)
add(
    Adapter("sglang", "fusion.gated_rms_norm", "sglang/kernels/ops/attention/fla/layernorm_gated.py",
            ("_layer_norm_fwd_1pass_kernel",),
            notes="rms_norm_gated (RMSNorm with norm_before_gate=False, eps 1e-5, swish): the "
                  "multi-row kernel, rows_per_block = min(next_power_of_2(cdiv(M, 2 x 132 SMs "
                  "of an H100)), 4); on sm90 the package launches with PDL (USE_GDC=True, "
                  "launch_pdl=True)",
            glue='''
MAX_ROWS_PER_BLOCK = 4
SM_COUNT = 132  # _get_sm_count on an H100


def calc_rows_per_block(M):
    rows_per_block = triton.next_power_of_2(triton.cdiv(M, 2 * SM_COUNT))
    return min(rows_per_block, MAX_ROWS_PER_BLOCK)


def run(x, z, weight):
    M, N = x.shape
    group_size = N
    ngroups = N // group_size
    out = torch.empty_like(x)
    rstd = torch.empty((ngroups * M,), dtype=torch.float32, device=x.device)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(group_size))
    if group_size > BLOCK_N:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    num_warps = min(max(BLOCK_N // 256, 1), 8)
    rows_per_block = calc_rows_per_block(M)
    grid = (triton.cdiv(M, rows_per_block), ngroups)
    pdl_kwargs = {"USE_GDC": True, "launch_pdl": True}  # is_arch_support_pdl() on sm90
    _layer_norm_fwd_1pass_kernel[grid](
        x, out, weight, None, z, None, rstd, x.stride(0), out.stride(0), z.stride(0), 0, 0, M,
        group_size, 1e-5, BLOCK_N=BLOCK_N, ROWS_PER_BLOCK=rows_per_block, HAS_BIAS=False,
        HAS_Z=True, Z_IS_3D=False, Z_HEADS=1, NORM_BEFORE_GATE=False, IS_RMS_NORM=True,
        num_warps=num_warps, ACTIVATION="swish", **pdl_kwargs)
    return out
'''),
)
