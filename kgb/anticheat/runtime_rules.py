"""Rules decided on the trusted side from what the candidate worker saw (layer 2) and from
consistency checks of its outputs (layer 3). The worker reports evidence; these decide."""

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
TORCH_AT_RUN_TIME = declare(Rule(
    "D206", 2, "pytorch-at-run-time", (1, 2, 3, 22),
    "While the entry ran, its host code dispatched PyTorch ops other than allocation, views, "
    "copies and fills (seen by a TorchDispatchMode, outside Triton launches).",
    "Compute in your Triton kernels; host code may only allocate, view, copy and fill."))
RESULT_FILE_INVALID = declare(Rule(
    "D205", 2, "result-file-invalid", (15, 16),
    "The worker's result file is not what kgb's worker writes (unknown keys, wrong types, "
    "cut short, oversized): something in the worker's process rewrote it.",
    "Do not write files or touch the harness; return outputs from the entry function."))

GHOST_REPLAY_CORRECT = declare(Rule(
    "D301", 3, "ghost-replay-correct", (2, 3),
    "With the file's Triton launches turned into no-ops the outputs were still right: the "
    "answer does not come from the Triton kernels.",
    "Compute the result in the Triton kernels the entry launches."))
NONDETERMINISTIC = declare(Rule(
    "D302", 3, "nondeterministic", (21, 17),
    "The same inputs, given again in new storage, gave different bits (or, for a Random task, "
    "the same seed did not repeat its output).",
    "Avoid races and uninitialised reads; derive random numbers from the seed argument only."))
SEED_IGNORED = declare(Rule(
    "D303", 3, "seed-ignored", (7,),
    "A Random task's kernel gave the very same output for another seed.",
    "Draw the random numbers from the seed argument (tl.rand(seed, offsets))."))
