"""How far a GPU's compiled tl.exp2 / tl.exp are from float64, in float32 ulps (session 31, run
21): retention_chunked's old kernel decayed its carried state by the same float32
exp2(log2_gamma * 32) every chunk, and a torch model needed that factor ~2 ulps off to give the
H100's error (the interpreter's numpy exp2 passes); mamba2_ssd_scan and selective_scan decay by
tl.exp(dt * A) every step. This prints, for retention's eight decays and for a sweep of the
scans' arguments, the compiled result's error (signed ulps) and its mean over the sweep (a bias
compounds, a scatter does not).

    python scripts/gpu/exp_probe.py            # on the GPU (compiled: ex2.approx.f32 on sm_90)
    TRITON_INTERPRET=1 python scripts/gpu/exp_probe.py   # the interpreter's numpy, for contrast"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _exp_kernel(x_ptr, e2_ptr, e_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(e2_ptr + offs, tl.exp2(x), mask=mask)
    tl.store(e_ptr + offs, tl.exp(x), mask=mask)


def _ulps(got: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
    """Signed error in units of the float32 spacing at the exact value."""
    spacing = torch.ldexp(torch.ones_like(exact), torch.frexp(exact)[1] - 24)
    return (got.double() - exact) / spacing


def main() -> None:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    h = torch.arange(8, dtype=torch.float64)
    retention = (torch.log2(1 - torch.pow(2.0, -5.0 - h)).float() * 32.0)  # lg * L, L = 32
    dt = torch.exp(torch.linspace(-7.0, -1.0, 4096, dtype=torch.float64))
    scans = (-(dt[:, None] * torch.linspace(1.0, 16.0, 16, dtype=torch.float64))).flatten()
    for name, x in (("retention exp2(lg * 32), heads 0..7", retention),
                    ("scans exp(dt * A) arguments, as exp2 and exp", scans.float())):
        x = x.to(device)
        e2, e = torch.empty_like(x), torch.empty_like(x)
        _exp_kernel[(triton.cdiv(x.numel(), 1024),)](x, e2, e, x.numel(), BLOCK=1024)
        u2 = _ulps(e2.cpu(), torch.exp2(x.cpu().double()))
        ue = _ulps(e.cpu(), torch.exp(x.cpu().double()))
        print(f"{name} on {device}:")
        if x.numel() <= 8:
            for xi, a in zip(x.cpu().tolist(), u2.tolist()):
                print(f"  x = {xi:+.6e}  exp2 off by {a:+.2f} ulps")
        print(f"  exp2: mean {float(u2.mean()):+.3f}, max |.| {float(u2.abs().max()):.2f} ulps; "
              f"exp: mean {float(ue.mean()):+.3f}, max |.| {float(ue.abs().max()):.2f} ulps")


if __name__ == "__main__":
    main()
