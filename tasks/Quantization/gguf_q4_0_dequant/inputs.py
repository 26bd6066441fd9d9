import torch

from kgb.tasks.inputs import integers, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Raw GGUF Q4_0 rows: per block of 32 weights, 2 bytes of float16 d (little-endian) then 16
    bytes of nibbles. d has either sign (llama.cpp's quantizer divides the signed extreme by -8)."""
    M, K = shape["M"], shape["K"]
    B = K // 32
    sign = torch.where(integers((M, B), 0, 2, gen) == 0, -1.0, 1.0).to(gen.device)
    d = uniform((M, B), "float32", gen, low=1e-3, high=5e-2) * sign
    qs = integers((M, B, 16), 0, 256, gen, dtype=torch.int32).to(torch.uint8)
    if mode == "outlier":
        # edge cases: d = 0, the largest and a subnormal float16 d, codes 0 and 15 (-8 and +7)
        d[0, 0] = 0.0
        d[M - 1, B - 1] = 65504.0
        d[M // 2, B // 2] = -2.0 ** -20
        qs[0, B - 1] = 0x0F
    d16 = d.to(torch.float16).unsqueeze(-1).view(torch.uint8)  # [M, B, 2], little-endian bytes
    return (torch.cat([d16, qs], dim=-1).reshape(M, B * 18),)
