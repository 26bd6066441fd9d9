import torch

LR, WEIGHT_DECAY, BETA, STEPS = 0.02, 0.01, 0.95, 5
NS_A, NS_B, NS_C = 3.4445, -4.7750, 2.0315  # Keller Jordan's quintic coefficients


def _muon(p, g, buf, work):
    """One Muon step (github.com/KellerJordan/Muon, muon_update + Muon.step) on one matrix:
    the momentum and the Nesterov blend in float32, the Newton-Schulz iteration in `work`, p
    and buf written IN PLACE (kgb calls it on clones and reads them back: kgb.judge.inplace)."""
    rows, cols = p.shape
    gf = g.float()
    m = buf.float().lerp(gf, 1 - BETA)
    x = gf.lerp(m, BETA).to(work)
    if rows > cols:
        x = x.mT
    x = x / (torch.linalg.matrix_norm(x) + 1e-7)
    for _ in range(STEPS):
        a = x @ x.mT
        b = NS_B * a + NS_C * (a @ a)
        x = NS_A * x + b @ x
    if rows > cols:
        x = x.mT
    scale = max(1.0, rows / cols) ** 0.5
    p.copy_(p.to(work) * (1 - LR * WEIGHT_DECAY) - (LR * scale) * x)
    buf.copy_(m)


def reference(p, g, buf):
    """The iteration in float64: the truth a float32 kernel is judged against."""
    _muon(p, g, buf, torch.float64)


def baseline(p, g, buf):
    """The task's float32 contract in PyTorch (fp32 matmuls; Keller Jordan's reference runs
    the iteration in bfloat16, which misses it), in place like the kernel."""
    _muon(p, g, buf, torch.float32)
