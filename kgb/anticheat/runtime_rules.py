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
    "D206", 2, "pytorch-at-run-time", (1, 2, 3, 22, 32, 33),
    "While the entry ran, its host code dispatched PyTorch ops other than allocation, views, "
    "copies and fills (seen by a TorchDispatchMode, outside Triton launches and inside custom "
    "ops whatever their names), cast into a dtype that cannot hold every value it copied, read "
    "tensor values into Python (tolist, numpy), or copied tensor "
    "data on a task whose answer is a re-layout (`glue = \"views\"`).",
    "Compute in your Triton kernels; host code may only allocate, view, copy and fill."))
HOST_OBJECT_IN_KERNEL = declare(Rule(
    "D207", 2, "host-object-in-kernel", (34, 1, 31),
    "A launch handed a kernel a value no compiled kernel can take (a tensor or module as "
    "tl.constexpr, a function, a container, any object Triton's launcher does not specialize), "
    "Triton would call back into code that is not the kernel file's own Python (a C builtin "
    "or torch function as a pre-run hook, grid or allocator; a triton.knobs runtime hook), "
    "the interpreter's GridExecutor was called past the launcher, or PyTorch ran inside a "
    "launch (an interpreted kernel body, a grid function or hook). Such a launch is refused "
    "before it compiles or runs.",
    "Pass kernels tensors, numbers and compile-time constants (int, float, bool, str, None, "
    "dtypes, jit functions); compute inside them with triton.language only."))
RESULT_FILE_INVALID = declare(Rule(
    "D205", 2, "result-file-invalid", (15, 16, 38),
    "The worker's result file is not what kgb's worker writes (unknown keys, wrong types, "
    "cut short, oversized, nested or numbered beyond the bounded reader's limits): something "
    "in the worker's process rewrote it.",
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
    "A Random task's kernel gave the very same output for another seed, where the task's "
    "reseed test also finds the two draws dependent (tiny cases repeat by chance).",
    "Draw the random numbers from the seed argument (tl.rand(seed, offsets))."))
WORK_OUTSIDE_TIMED_WINDOW = declare(Rule(
    "D304", 3, "work-outside-timed-window", (12, 13, 14),
    "The supervisor's clock saw the timing loop take far longer than its CUDA events and the "
    "loop's own cost explain (work on another stream or thread, or forged event times), or the "
    "profiler saw more kernel time than the events. (Beside another process on the GPU, or "
    "where the worker's wait for a CPU covers the excess, the window is named, not ruled on, "
    "and no speedup counts.)",
    "Launch on the current stream and return when the work is enqueued; do not touch timers."))
LATE_WRITE = declare(Rule(
    "D305", 3, "late-write", (13,),
    "The outputs changed after the call had returned and the device was synchronized: work "
    "was still being done by a thread or another stream.",
    "Finish the work before returning (everything on the current stream)."))
KERNEL_SWITCH = declare(Rule(
    "D306", 3, "kernel-switch", (30, 17),
    "The kernels the profiler saw while a case was timed differ from those seen while it was "
    "checked: a different code path runs when timed.",
    "Run the same kernels whenever the entry is called."))
IMPOSSIBLE_SPEED = declare(Rule(
    "D307", 3, "impossible-speed", (24, 28, 8),
    "The median time is below the hardware's floor for the task's work: max(FLOPs / peak "
    "FLOP/s, bytes / peak bandwidth), from the device's datasheet.",
    "Compute the whole result on every call; nothing can move data faster than the memory."))
TIMED_OUTPUT_WRONG = declare(Rule(
    "D308", 3, "timed-output-wrong", (8, 17, 29, 30),
    "A timed call's outputs, chosen by the supervisor after they were committed, do not match "
    "the reference for that call's inputs, or were not saved though the output folder had "
    "room.",
    "Compute every call's answer from its own inputs; never replay or skip work when timed."))
TIMED_OUTPUT_SWAPPED = declare(Rule(
    "D309", 3, "timed-output-swapped", (16,),
    "A saved timed output is not the one whose fingerprint was committed to the supervisor, "
    "or not the size the worker told it (it keeps fewer re-checks of large outputs).",
    "Do not touch the harness's files."))
