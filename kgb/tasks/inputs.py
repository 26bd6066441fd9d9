"""Input generators shared by the suite's make_inputs functions.

Everything is drawn from the explicit `torch.Generator` handed in, on that generator's device:
the same seed, shape, device and torch give the same bits in any process (design rule 3)."""

from __future__ import annotations

import torch

OUTLIER_FRACTION = 1e-3  # share of elements amplified in outlier mode (at least one)
OUTLIER_SCALE = 1e3  # how much they are amplified


def dtype_of(name: str) -> torch.dtype:
    return getattr(torch, name)


def normal(shape: tuple[int, ...], dtype: str, gen: torch.Generator, std: float = 1.0,
           mean: float = 0.0) -> torch.Tensor:
    t = torch.randn(shape, generator=gen, device=gen.device, dtype=torch.float32)
    return (t * std + mean).to(dtype_of(dtype))


def uniform(shape: tuple[int, ...], dtype: str, gen: torch.Generator, low: float = 0.0,
            high: float = 1.0) -> torch.Tensor:
    t = torch.rand(shape, generator=gen, device=gen.device, dtype=torch.float32)
    return (t * (high - low) + low).to(dtype_of(dtype))


def integers(shape: tuple[int, ...], low: int, high: int, gen: torch.Generator,
             dtype: torch.dtype = torch.int64) -> torch.Tensor:
    return torch.randint(low, high, shape, generator=gen, device=gen.device, dtype=dtype)


def with_outliers(t: torch.Tensor, gen: torch.Generator, scale: float = OUTLIER_SCALE,
                  fraction: float = OUTLIER_FRACTION) -> torch.Tensor:
    """A copy of `t` with a few elements multiplied by `scale` (sign-flipped at odd positions):
    catches kernels that skip max-subtraction, use naive variance or a narrower dtype.

    Deterministic even when the random positions repeat: every write to one position stores
    the same value (CUDA's index_put with duplicate indices picks an arbitrary writer)."""
    flat = t.detach().clone().reshape(-1)
    count = max(1, int(flat.numel() * fraction))
    idx = torch.randint(0, flat.numel(), (count,), generator=gen, device=gen.device)
    sign = 1 - 2 * (idx % 2)
    limit = torch.finfo(t.dtype).max if t.dtype.is_floating_point else None
    amplified = flat[idx].float() * scale * sign
    if limit is not None:
        amplified = amplified.clamp(-limit / 4, limit / 4)
    flat[idx] = amplified.to(t.dtype)
    return flat.reshape(t.shape)


def maybe_outliers(t: torch.Tensor, gen: torch.Generator, mode: str,
                   scale: float = OUTLIER_SCALE) -> torch.Tensor:
    return with_outliers(t, gen, scale) if mode == "outlier" else t


def build_module(cls, init_inputs, seed: int, device: str):
    """An nn.Module built as KernelBench builds Model and ModelNew: the global RNG seeded with
    `seed`, then `cls(*init_inputs())` on the CPU (so both sides draw the same parameters
    whatever the device), then moved to `device`. Used by imported KernelBench tasks' inputs.py
    on both sides of the trust boundary, so the reference's Model and the candidate's ModelNew
    go through the very same steps. Parameters do not require grad: both sides only run
    forward, and no autograd graph is built around the candidate's outputs."""
    with torch.random.fork_rng(devices=[]), torch.no_grad():  # leave the global RNG as it was
        torch.manual_seed(seed)
        module = cls(*init_inputs())
    module = module.to(device)
    for parameter in module.parameters():
        parameter.requires_grad_(False)
    return module


# float8 codes and their scales (the fp8 dequantize tasks: quantization.fp8_dequant_*)
FP8_FORMATS = {4: torch.float8_e4m3fn, 5: torch.float8_e5m2}  # the shape's EBITS: exponent bits
FP8_MAX = {4: 448.0, 5: 57344.0}
FP8_SPECIAL = {4: (0x7F, 0xFF), 5: (0x7C, 0xFC, 0x7E, 0xFE)}  # NaN, -NaN / +Inf, -Inf, NaN, -NaN


def fp8_codes(shape: tuple, ebits: int, gen: torch.Generator, mode: str) -> torch.Tensor:
    """Every finite code of the format equally likely: each exponent, the subnormals, +-0 and
    the largest values; outlier mode plants the format's NaN (and +-Inf) codes."""
    bits = integers(shape, 0, 256, gen, dtype=torch.int32).to(torch.uint8)
    finite = torch.isfinite(bits.view(FP8_FORMATS[ebits]).float())
    bits = torch.where(finite, bits, torch.zeros_like(bits))
    if mode == "outlier":
        flat = bits.reshape(-1)
        special = torch.tensor(FP8_SPECIAL[ebits], dtype=torch.uint8, device=flat.device)
        start = integers((1,), 0, flat.numel(), gen)
        # consecutive positions: distinct, so no write races another (CUDA's index_put)
        flat[(start + torch.arange(len(special), device=flat.device)) % flat.numel()] = special
    return bits.view(FP8_FORMATS[ebits])


def fp8_scales(shape: tuple, ebits: int, gen: torch.Generator, low: int) -> torch.Tensor:
    """As a quantizer leaves them, amax / FP8_MAX, for amax in [2**low, 2**11): full float32
    mantissas, every output within float16's range."""
    mantissa = uniform(shape, "float32", gen, low=1.0, high=2.0)
    exponent = integers(shape, low, 11, gen).float()
    return mantissa * torch.exp2(exponent) / FP8_MAX[ebits]

