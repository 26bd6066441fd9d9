"""The names outputs travel under between the candidate worker and the judge."""

from __future__ import annotations

OUTPUT_KEY = "out{}"  # safetensors key of the i-th returned tensor


def output_file(index: int) -> str:
    return f"case_{index:03d}.safetensors"
