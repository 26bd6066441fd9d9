"""The interpreter repairs: bf16 tl.dot and fp32→bf16 rounding match PyTorch bit for bit, and
Python float arguments are fp32 scalars as in compiled Triton."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from conftest import ROOT

PROGRAM = textwrap.dedent('''
    import sys
    import torch, triton, triton.language as tl
    if sys.argv[1] == "fix":
        from kgb.worker.interpreter_fixes import apply
        assert apply()

    @triton.jit
    def mm(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N); rk = tl.arange(0, K)
        x = tl.load(a + rm[:, None] * K + rk[None, :])
        y = tl.load(b + rk[:, None] * N + rn[None, :])
        tl.store(c + rm[:, None] * N + rn[None, :], tl.dot(x, y).to(tl.bfloat16))

    g = torch.Generator().manual_seed(0)
    a = torch.randn(16, 32, generator=g).bfloat16()
    b = torch.randn(32, 16, generator=g).bfloat16()
    c = torch.empty(16, 16, dtype=torch.bfloat16)
    mm[(1,)](a, b, c, 16, 16, 32)
    print(torch.equal(c, (a.float() @ b.float()).bfloat16()))
''')


FLOAT_ARG_PROGRAM = textwrap.dedent('''
    import sys
    import torch, triton, triton.language as tl
    if sys.argv[1] == "fix":
        from kgb.worker.interpreter_fixes import apply
        assert apply()

    @triton.jit
    def scale(x_ptr, out_ptr, alpha, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * alpha)  # fp16 * fp32 scalar: fp32

    x = torch.tensor([1.0009765625, 3.0, 0.1, -7.5], dtype=torch.float16)
    out = torch.empty(4, dtype=torch.float32)
    alpha = 1.0 + 2.0 ** -12
    scale[(1,)](x, out, alpha, 4)
    print(torch.equal(out, x.float() * torch.tensor(alpha, dtype=torch.float32)))
''')


def run(mode: str, program: str = PROGRAM) -> str:
    env = {"TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", program, mode], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_bf16_dot_is_garbage_without_the_fix_and_exact_with_it():
    assert run("nofix") == "False"
    assert run("fix") == "True"


def test_float_arguments_are_fp32_scalars_as_when_compiled():
    """Without the fix the interpreter rounds the product to fp16 (the float acts as a weakly
    typed literal); compiled Triton on the H100 gives the fp32 product (docs/gpu.md)."""
    assert run("nofix", FLOAT_ARG_PROGRAM) == "False"
    assert run("fix", FLOAT_ARG_PROGRAM) == "True"


REPAIRS_PROGRAM = textwrap.dedent('''
    import sys
    import torch, triton, triton.language as tl
    from triton.language.extra import libdevice
    from kgb.worker.interpreter_fixes import apply
    applied = apply()

    @triton.jit
    def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        keep = (x > 0) and (x < 1)
        neg = not (x > 0)
        both = FLAG and (x > 0.3)
        either = (x < -0.4) or (x > 1.4)
        y = tl.where(keep, 1.0, 0.0) + tl.where(neg, 10.0, 0.0) + tl.where(both, 100.0, 0.0)
        y += tl.where(either, 1000.0, 0.0)
        y += libdevice.tanh(x) + libdevice.rint(x) + libdevice.erf(x) + libdevice.pow(x * x, 0.5)
        y += libdevice.float2int_rn(x * 3.0).to(tl.float32)
        tl.store(out_ptr + offs, y, mask=offs < n)

    @triton.jit
    def unsupported(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, libdevice.tgamma(tl.load(x_ptr + offs, mask=offs < n)),
                 mask=offs < n)

    x = torch.tensor([-0.5, 0.5, 1.5, 0.2])
    out = torch.empty_like(x)
    k[(1,)](x, out, 4, BLOCK=4, FLAG=True)
    # compiled Triton: and/or/not elementwise, constexpr FLAG short-circuits (checked on a GPU)
    expected = (torch.tensor([10., 1, 0, 1]) + torch.tensor([0., 100, 100, 0])
                + torch.tensor([1000., 0, 1000, 0]) + torch.tanh(x) + torch.round(x)
                + torch.erf(x) + x.abs() + torch.round(x * 3))
    print("values", torch.allclose(out, expected, atol=1e-6), out.tolist(), expected.tolist())
    try:
        unsupported[(1,)](x, 4, BLOCK=4)
        print("tgamma", "ran")
    except Exception as exc:
        cause = exc.__cause__ or exc
        print("tgamma", type(cause).__name__, "tgamma" in str(cause))
    try:
        k.warmup(x, out, 4, BLOCK=4, FLAG=True, grid=(1,))
    except Exception as exc:
        print("warmup", type(exc).__name__)
    try:
        triton.runtime.driver.active.utils.get_device_properties(0)
    except Exception as exc:
        print("driver", type(exc).__name__)
    @triton.jit
    def bf16_ops(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        a = tl.load(a_ptr + offs)
        b = tl.load(b_ptr + offs)
        tl.store(out_ptr + offs, tl.maximum(a, b))
        tl.store(out_ptr + BLOCK + offs, a + b)
        tl.store(out_ptr + 2 * BLOCK + offs, tl.where(a > b, a, b))
        tl.store(out_ptr + 3 * BLOCK + offs, tl.cumsum(a, axis=0))
        tl.store(out_ptr + 4 * BLOCK + offs, (a.to(tl.int32) * 2).to(tl.bfloat16))
        tl.store(out_ptr + 5 * BLOCK, tl.sum(a, axis=0))
        tl.store(out_ptr + 5 * BLOCK + 1, tl.max(a, axis=0))

    a = torch.tensor([-1.5, 2.0, -0.25, 3.0]).bfloat16()
    b = torch.tensor([-2.0, -3.0, 0.5, 1.0]).bfloat16()
    got = torch.zeros(24, dtype=torch.bfloat16)
    bf16_ops[(1,)](a, b, got, BLOCK=4)
    want = torch.cat([torch.maximum(a, b), a + b, torch.where(a > b, a, b),
                      a.float().cumsum(0).bfloat16(), (a.int() * 2).bfloat16(),
                      torch.stack([a.float().sum().bfloat16(), a.max()]), torch.zeros(2).bfloat16()])
    print("bf16", torch.equal(got, want), got.tolist())

    @triton.jit
    def loops(o_ptr, n, K, BLOCK: tl.constexpr):
        acc = tl.zeros([BLOCK], tl.float32)
        for i in range(0, n):
            for j in range(i + 1, n):  # a loop variable as another loop's bound
                acc += tl.where(i == 0, 1.0, 0.0) + j
        for kk in range(0, tl.cdiv(K, BLOCK)):
            acc += kk.to(tl.int64).to(tl.float32)  # compiled: loop variables are tensors
        for s in tl.static_range(3):
            acc += s
        for t in tl.range(0, 2, num_stages=2):
            acc += t.to(tl.float32)
        for u in range(n - 1, -1, -1):
            acc += u
        tl.store(o_ptr + tl.arange(0, BLOCK), acc)

    got = torch.zeros(4)
    loops[(1,)](got, 4, 10, BLOCK=4)
    print("loops", got.tolist() == [30.0] * 4, got.tolist())

    # Spellings real packages use (docs/realworld.md, FP2 and FP3): an alias of a libdevice
    # function (unsloth), the tl.extra.cuda.libdevice path (vLLM, SGLang), an alias of a tl
    # builtin. Compiled Triton accepts all three.
    from kgb.worker.interpreter_fixes import bind_builtin_aliases
    from kgb.worker.jit_globals import non_constexpr_globals
    my_tanh = libdevice.tanh
    my_cast = tl.cast

    @triton.jit
    def aliases(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        y = my_tanh(x) + tl.extra.cuda.libdevice.round(x * 3.0) + my_cast(x > 0, tl.float32)
        tl.store(y_ptr + offs, y, mask=offs < n)

    bind_builtin_aliases(sys.modules[__name__])
    refused = non_constexpr_globals(sys.modules[__name__])
    xs = torch.linspace(-2, 2, 8)
    ys = torch.empty(8)
    aliases[(1,)](xs, ys, 8, BLOCK=8)
    want = torch.tanh(xs) + torch.sign(xs * 3) * torch.floor((xs * 3).abs() + 0.5) + (xs > 0)
    print("aliases", torch.allclose(ys, want, atol=1e-6) and not refused, refused, ys.tolist())

    # Programmatic dependent launch (SGLang on sm90+, docs/realworld.md FP4): the grid
    # dependency builtins order grids on a stream; the interpreter runs grids one by one.
    from triton.language.extra.cuda import gdc_launch_dependents as pdl_release

    @triton.jit
    def gdc_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, USE_GDC: tl.constexpr):
        if USE_GDC:
            tl.extra.cuda.gdc_wait()
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
        if USE_GDC:
            pdl_release()  # the imported spelling

    zs = torch.empty(8)
    gdc_copy[(1,)](xs, zs, 8, BLOCK=8, USE_GDC=True, launch_pdl=True)
    refused = non_constexpr_globals(sys.modules[__name__])
    print("gdc", torch.equal(zs, xs * 2.0) and not refused, refused)
    print("applied", " ".join(applied))
''')


def test_interpreter_repairs_give_compiled_semantics_or_a_named_limitation(tmp_path):
    """libdevice through PyTorch; `and`/`or`/`not` elementwise as compiled Triton does them;
    what cannot be repaired (tgamma, warmup, the GPU driver) raises InterpreterLimitation.
    (A file, not `python -c`: the interpreter rewrites kernels from their source file.)"""
    program = tmp_path / "repairs.py"
    program.write_text(REPAIRS_PROGRAM)
    proc = subprocess.run([sys.executable, str(program)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT,
                          env={"TRITON_INTERPRET": "1", "PATH": "/usr/bin:/bin",
                               "PYTHONPATH": str(ROOT)})
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    assert lines.get("values", "").startswith("True"), proc.stdout + proc.stderr[-2000:]
    assert lines["tgamma"] == "InterpreterLimitation True"
    assert lines["warmup"] == "InterpreterLimitation"
    assert lines["driver"] == "InterpreterLimitation"
    assert lines["bf16"].startswith("True"), lines["bf16"]
    assert lines["loops"].startswith("True"), lines["loops"]
    assert lines["aliases"].startswith("True"), lines["aliases"]
    assert lines["gdc"].startswith("True"), proc.stdout + proc.stderr[-2000:]
    assert {"libdevice-via-torch", "bool-ops-elementwise", "bf16-arithmetic-fp32",
            "loop-vars-tensors", "gdc-no-op"} <= set(
        lines["applied"].split())


def test_a_named_limitation_is_not_checkable_and_the_job_is_never_passed():
    from kgb import protocol as P
    from kgb.runner.interpreter import InterpreterLimits
    from kgb.runner.verdict import decide

    spec = P.CaseSpec("a", "s", {"N": 4}, "float32", "standard", "contiguous",
                      (P.CallSpec(P.CallKind.PRIMARY, 1),))
    plan = P.PlanRecord("t", "Math", "kernels/k.py", "cpu", 10.0, (spec,))
    raised = P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RAISED,
                          error="InterpreterLimitation: libdevice __nv_tgammaf has no ...",
                          error_kind=P.ErrorKind.INTERPRETER)
    result = P.WorkerResult("done", (P.CaseRecord("a", (raised,)),))
    verdict = decide(plan, P.ExecRecord("process", 0, False, 1.0, False), result, None,
                     InterpreterLimits(frozenset()))
    assert verdict.verdict == "unverified" and "tgamma" in verdict.message
    assert verdict.cases[0].status == "not_checkable"


FP8_PROGRAM = textwrap.dedent('''
    import sys
    import torch, triton, triton.language as tl
    if sys.argv[1] == "fix":
        from kgb.worker.interpreter_fixes import apply
        assert "fp8-casts-via-torch" in apply()

    @triton.jit
    def cast(x_ptr, e4_ptr, e5_ptr, back_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        e4 = x.to(tl.float8e4nv)
        tl.store(e4_ptr + offs, e4, mask=mask)
        tl.store(e5_ptr + offs, x.to(tl.float8e5), mask=mask)
        tl.store(back_ptr + offs, e4.to(tl.float32), mask=mask)

    # a tie (1.0625 -> 1.0 in e4m3), an e4m3 subnormal, values past 448 and 57344 (the GPU's
    # cvt.rn.satfinite saturates them), NaN
    x = torch.tensor([1.0625, 1.1875, 0.001, -3.3, 460.0, -1000.0, 6.0e4, 1.0e6, float("nan")])
    n = x.numel()
    e4 = torch.empty(n, dtype=torch.float8_e4m3fn)
    e5 = torch.empty(n, dtype=torch.float8_e5m2)
    back = torch.empty(n)
    cast[(1,)](x, e4, e5, back, n, BLOCK=16)
    sat4 = torch.where(x.isnan(), x, x.clamp(-448.0, 448.0)).to(torch.float8_e4m3fn)
    sat5 = torch.where(x.isnan(), x, x.clamp(-57344.0, 57344.0)).to(torch.float8_e5m2)
    same = lambda a, b: torch.equal(a.view(torch.uint8), b.view(torch.uint8))
    print(same(e4, sat4) and same(e5, sat5) and
          torch.equal(back.nan_to_num(), sat4.float().nan_to_num()))
''')


def test_fp8_casts_round_to_nearest_even_and_saturate_as_on_the_gpu():
    """The interpreter's own fp8 conversion rounds ties away from zero, flushes subnormals and
    wraps 460 to 256 in e4m3; with the fix each cast equals torch's round-to-nearest-even of
    the value clamped to the largest finite one (cvt.rn.satfinite)."""
    assert run("nofix", FP8_PROGRAM) == "False"
    assert run("fix", FP8_PROGRAM) == "True"


def test_fp8_kernels_are_not_checkable_without_the_fp8_repair():
    from kgb.protocol import FP8_CAST_FIX
    from kgb.runner.interpreter import FP8, InterpreterLimits, scan

    source = ("import triton\nimport triton.language as tl\n\n@triton.jit\n"
              "def k(x, y):\n    tl.store(y, tl.load(x).to(tl.float8e4nv))\n")
    assert FP8 in scan(source)
    assert InterpreterLimits(frozenset({FP8})).not_checkable("float32") is not None
    assert InterpreterLimits(frozenset({FP8}), frozenset({FP8_CAST_FIX})).not_checkable(
        "float32") is None


# -- float32 tl.dot reads its operands as TF32, as a GPU's tensor cores do ---------------------

TF32_PROGRAM = textwrap.dedent('''
    import sys
    import torch, triton, triton.language as tl
    if sys.argv[1] == "fix":
        from kgb.worker.interpreter_fixes import apply
        assert apply()

    @triton.jit
    def dot16(a_ptr, b_ptr, c_ptr, PRECISION: tl.constexpr, TF32: tl.constexpr):
        r = tl.arange(0, 16)
        a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
        b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
        if PRECISION == "default":
            c = tl.dot(a, b)
        elif PRECISION == "allow_tf32":
            c = tl.dot(a, b, allow_tf32=TF32)
        else:
            c = tl.dot(a, b, input_precision=PRECISION)
        tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)

    # 1 + 2**-11 + 2**-12 has two mantissa bits below TF32's ten: TF32 reads 1.0 (the bits are
    # dropped), IEEE keeps them; every product and sum below is exact in float32
    a = torch.full((16, 16), 1 + 2.0 ** -11 + 2.0 ** -12)
    a[1] = -a[1]
    b = torch.ones(16, 16)
    got = {}
    for precision, tf32 in [("default", None), ("tf32", None), ("allow_tf32", True),
                            ("allow_tf32", False), ("ieee", None), ("tf32x3", None)]:
        c = torch.empty(16, 16)
        dot16[(1,)](a, b, c, precision, tf32)
        got[f"{precision}{'' if tf32 is None else '=' + str(tf32)}"] = c[:2, 0].tolist()
    for name, values in got.items():
        print(name, values)
''')


def test_float32_dot_reads_operands_as_tf32_unless_ieee():
    """A GPU reads tl.dot's float32 operands as TF32 by default (or with allow_tf32=True): the
    13 low mantissa bits are ignored, so 16 products of (1 + 2^-11 + 2^-12) * 1 sum to 16.
    The interpreter used full float32 (16.01171875), so a float32 GEMM that the task wants in
    IEEE precision passed on the CPU and failed on an H200. "ieee" and "tf32x3" stay exact."""
    exact, tf32 = 16 * (1 + 2.0 ** -11 + 2.0 ** -12), 16.0
    before = dict(line.split(" ", 1) for line in run("nofix", TF32_PROGRAM).splitlines())
    after = dict(line.split(" ", 1) for line in run("fix", TF32_PROGRAM).splitlines())
    assert all(values == str([exact, -exact]) for values in before.values()), before
    assert after == {"default": str([tf32, -tf32]), "tf32": str([tf32, -tf32]),
                     "allow_tf32=True": str([tf32, -tf32]),
                     "allow_tf32=False": str([exact, -exact]),
                     "ieee": str([exact, -exact]), "tf32x3": str([exact, -exact])}


def test_tf32_operand_keeps_special_values_and_truncates_toward_zero():
    import numpy as np

    from kgb.worker.interpreter_fixes import tf32_operand

    values = np.array([1 + 2.0 ** -10 + 2.0 ** -11 + 2.0 ** -23, -(1 + 2.0 ** -11), np.inf,
                       -np.inf, np.nan, 3e-42, 0.0], dtype=np.float32)
    got = tf32_operand(values)
    assert got.dtype == np.float32
    assert got[:2].tolist() == [1 + 2.0 ** -10, -1.0]  # toward zero, never rounded up
    assert got[2] == np.inf and got[3] == -np.inf and np.isnan(got[4])
    assert got[5] == np.float32(3e-42).view(np.uint32) & 0xFFFFE000 and got[6] == 0.0
    nan_with_low_payload = np.array([0x7F800001], dtype=np.uint32).view(np.float32)
    assert np.isnan(tf32_operand(nan_with_low_payload)[0])  # not turned into infinity


_PTX_OF_DOTS = """
import json, re, sys
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
sys.path.insert(0, sys.argv[1])
from tf32_kernel import mm
found = {}
for precision in ("tf32", "tf32x3", "ieee"):
    compiled = triton.compile(ASTSource(mm, {"a": "*fp32", "b": "*fp32", "c": "*fp32",
                                             "P": "constexpr"}, constexprs={"P": precision}),
                              target=GPUTarget("cuda", 90, 32))
    ptx = compiled.asm["ptx"]
    found[precision] = {"cvt_to_tf32": "cvt.rna.tf32.f32" in ptx,
                        "tf32_mma": bool(re.search(r"wgmma[.a-z_0-9]*\\.tf32\\.tf32", ptx))}
print(json.dumps(found))
"""


def test_compiled_tf32_dots_hand_fp32_bits_to_the_tensor_cores_unconverted(tmp_path):
    """Why the repair truncates rather than rounds: compiling for sm_90 (no GPU needed), a
    "tf32" dot feeds the float32 registers straight to a .tf32 wgmma — no cvt instruction, so
    the hardware's reading of the operands (dropping the low bits) is all there is — while
    tf32x3 rounds its parts with cvt.rna. If a Triton release starts rounding, this fails and
    the repair must follow it."""
    (tmp_path / "tf32_kernel.py").write_text(textwrap.dedent('''
        import triton
        import triton.language as tl

        @triton.jit
        def mm(a, b, c, P: tl.constexpr):
            r = tl.arange(0, 64)
            x = tl.load(a + r[:, None] * 64 + r[None, :])
            y = tl.load(b + r[:, None] * 64 + r[None, :])
            tl.store(c + r[:, None] * 64 + r[None, :], tl.dot(x, y, input_precision=P))
    '''))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TRITON_DEFAULT_FP_FUSION": "1",
           "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", _PTX_OF_DOTS, str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found == {"tf32": {"cvt_to_tf32": False, "tf32_mma": True},
                     "tf32x3": {"cvt_to_tf32": True, "tf32_mma": True},
                     "ieee": {"cvt_to_tf32": False, "tf32_mma": False}}
