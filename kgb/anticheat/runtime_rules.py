"""Rules checked while or after the candidate runs (layers 2 and 3)."""

from __future__ import annotations

from kgb.anticheat.registry import Rule, declare

INPUT_MUTATED = declare(Rule(
    "D201", 2, "input-mutated", (9,),
    "The kernel wrote into one of its input tensors.",
    "Allocate outputs with torch.empty*/zeros* and never store through input pointers."))
OUTPUT_ALIASES_INPUT = declare(Rule(
    "D202", 2, "output-aliases-input", (10,),
    "A returned tensor shares storage with an input (the input itself or a view of it).",
    "Return freshly allocated output tensors."))
OUTPUT_NOT_PLAIN_TENSOR = declare(Rule(
    "D203", 2, "output-not-plain-tensor", (11,),
    "A returned value is not exactly torch.Tensor (a subclass, or not a tensor at all).",
    "Return plain torch.Tensor objects allocated with torch.empty*/zeros*."))
NO_OWN_TRITON_LAUNCH = declare(Rule(
    "D204", 2, "no-own-triton-launch", (1, 2, 3),
    "A call finished without launching any @triton.jit kernel defined in the kernel file.",
    "Compute the result in a Triton kernel of your own file, launched on every call."))
