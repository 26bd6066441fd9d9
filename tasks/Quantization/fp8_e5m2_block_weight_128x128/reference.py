import torch
import torch.nn.functional as F

FP8 = torch.float8_e5m2
FP8_MAX = 57344.0
EPS = 1e-10
BLOCK = 128


def _block_scales(w):
    """Each block's max |w| in w's dtype (exact), then the float32 scale."""
    N, K = w.shape
    GN, GK = (N + BLOCK - 1) // BLOCK, (K + BLOCK - 1) // BLOCK
    padded = F.pad(w.abs(), (0, GK * BLOCK - K, 0, GN * BLOCK - N))  # zeros keep max |w|
    tiles = padded.reshape(GN, BLOCK, GK, BLOCK)
    return tiles.amax(dim=(1, 3)).float().clamp(min=EPS) / FP8_MAX


def _expand(scale, N, K):
    return scale.repeat_interleave(BLOCK, 0).repeat_interleave(BLOCK, 1)[:N, :K]


def reference(w):
    wf = w.float()
    scale = _block_scales(wf)
    q = (wf / _expand(scale, *w.shape)).clamp(-FP8_MAX, FP8_MAX).to(FP8)
    return (q, scale)


def baseline(w):
    scale = _block_scales(w)
    return ((w / _expand(scale, *w.shape)).clamp(-FP8_MAX, FP8_MAX).to(FP8), scale)


def quotient(w):
    # the value q rounds, exactly (float64): where it is the midpoint of two codes, either one is
    # an honest code (kgb/judge/ties.py); the scale is not rounded codes
    wd = w.double()
    N, K = w.shape
    GN, GK = (N + BLOCK - 1) // BLOCK, (K + BLOCK - 1) // BLOCK
    padded = F.pad(wd.abs(), (0, GK * BLOCK - K, 0, GN * BLOCK - N))
    amax = padded.reshape(GN, BLOCK, GK, BLOCK).amax(dim=(1, 3)).clamp(min=EPS)
    return (wd * FP8_MAX / _expand(amax, N, K), None)
