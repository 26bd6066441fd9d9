import torch

from kgb.tasks.inputs import dtype_of, integers, uniform

FORMATS = {4: torch.float8_e4m3fn, 5: torch.float8_e5m2}  # the shape's EBITS: exponent bits
FP8_MAX = {4: 448.0, 5: 57344.0}
SPECIAL = {4: (0x7F, 0xFF), 5: (0x7C, 0xFC, 0x7E, 0xFE)}  # NaN, -NaN / +Inf, -Inf, NaN, -NaN


def codes(shape: tuple, ebits: int, gen: torch.Generator, mode: str) -> torch.Tensor:
    """Every finite code of the format equally likely: each exponent, the subnormals, +-0 and
    the largest values; outlier mode plants the format's NaN (and +-Inf) codes."""
    bits = integers(shape, 0, 256, gen, dtype=torch.int32).to(torch.uint8)
    finite = torch.isfinite(bits.view(FORMATS[ebits]).float())
    bits = torch.where(finite, bits, torch.zeros_like(bits))
    if mode == "outlier":
        flat = bits.reshape(-1)
        special = torch.tensor(SPECIAL[ebits], dtype=torch.uint8, device=flat.device)
        start = integers((1,), 0, flat.numel(), gen)
        # consecutive positions: distinct, so no write races another (CUDA's index_put)
        flat[(start + torch.arange(len(special), device=flat.device)) % flat.numel()] = special
    return bits.view(FORMATS[ebits])


def scales(shape: tuple, ebits: int, gen: torch.Generator, low: int) -> torch.Tensor:
    """As a quantizer leaves them, amax / FP8_MAX, for amax in [2**low, 2**11): full float32
    mantissas, every output within float16's range."""
    mantissa = uniform(shape, "float32", gen, low=1.0, high=2.0)
    exponent = integers(shape, low, 11, gen).float()
    return mantissa * torch.exp2(exponent) / FP8_MAX[ebits]


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, ebits = shape["M"], shape["N"], shape["EBITS"]
    G = (N + 127) // 128
    q = codes((M, N), ebits, gen, mode)
    scale = scales((M, G), ebits, gen, -20 if mode == "outlier" else -4)
    if mode == "outlier" and M * G >= 3:
        # edge cases from the spec: a group with scale 0 (out +-0; NaN from NaN and Inf codes)
        # and the last, possibly partial, group of the last row a quantizer's all-zero group
        # (zero codes, scale 1e-10 / FP8_MAX); only where a group is left to hold nonzero answers
        row = int(integers((1,), 0, M, gen).item())
        scale[row, 0] = 0.0
        q.view(torch.uint8)[M - 1, (G - 1) * 128:] = 0
        scale[M - 1, G - 1] = torch.tensor(1e-10, device=scale.device) / FP8_MAX[ebits]
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (q, scale, probe)
