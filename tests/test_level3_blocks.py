"""The level-3 blocks of issue 27 (attention variants, MoE blocks, decoder-layer pieces,
quantized MLPs): each meets the suite's bar, the suite has 40 or more level-3 tasks, and for
each block a plausible wrong kernel (the reference run on inputs that drop one feature of the
block: the prefix, the chunks, the sinks, ALiBi, the routing weights ...) fails the task's own
comparison on a tiny CPU case while the reference passes it. The suite-quality probes (zeros,
constants, passthrough, half-written, bfloat16-rounded, glue-only) and the solutions run in
tests/test_suite_quality.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
import torch
from conftest import ROOT

from kgb.runner.plan import plan_cases
from kgb.suite.quality import TaskProbe
from kgb.tasks.cost_model import evaluate
from kgb.tasks.loader import load_suite
from kgb.tasks.model import SHAPE_TAGS

BLOCKS = (
    "prefix_lm_attention", "chunked_local_attention", "attention_sinks", "mla_decode_paged",
    "paged_attention_v1_alibi", "moe_fused_experts", "moe_block_shared_expert",
    "moe_llama4_block", "moe_align_permute", "qkv_rope_cache_write", "decoder_layer_rope_gqa",
    "gemma2_mlp_sandwich", "add_rms_norm_w8a8_proj", "w8a8_int8_swiglu_mlp",
    "w4a16_awq_swiglu_mlp",
)
IDS = [f"fusion.{n}" for n in BLOCKS]
INT8 = {"fusion.add_rms_norm_w8a8_proj", "fusion.w8a8_int8_swiglu_mlp"}


@pytest.fixture(scope="module")
def suite():
    return load_suite(ROOT / "tasks")


def test_the_suite_has_forty_level3_tasks(suite):
    assert sum(1 for t in suite.values() if t.level == 3) >= 40


@pytest.mark.parametrize("task_id", IDS)
def test_block_meets_the_suite_bar(suite, task_id):
    task = suite[task_id]
    assert (task.level, task.direction, task.category) == (3, "forward", "Fusion")
    assert {tag for s in task.shapes for tag in s.tags} == set(SHAPE_TAGS)
    cpu = task.shapes_for("cpu")
    assert any("tiny" in s.tags for s in cpu) and any("non-pow2" in s.tags for s in cpu)
    assert any(s.gpu_only for s in task.shapes)
    for shape in task.shapes:
        values = dict(shape.dims, itemsize=2)
        assert evaluate(task.flops, values) > 0 and evaluate(task.bytes, values) > 0
    assert "do not modify" in " ".join(task.description.lower().split())
    assert (task.folder / "solution.py").is_file()
    if task_id in INT8:  # the integer GEMM and rounding contract is not rounding noise
        assert task.strict_tolerance and "torch._int_mm" in task.forbid


def _set(i: int, value: Callable) -> Callable:
    def cheat(inputs: list) -> list:
        inputs[i] = value(inputs[i], inputs)
        return inputs
    return cheat


def _top_logit_40(logits, _):
    out = logits.clone()
    out.scatter_(1, logits.float().argmax(dim=1, keepdim=True), 40.0)  # sigmoid(40) = 1
    return out


def _no_rope_part(q, inputs):
    q = q.clone()
    q[..., inputs[4]:] = 0
    return q


# task -> (what the wrong kernel forgets, how the inputs drop it)
WRONG = [
    ("prefix_lm_attention", "the prefix", _set(3, lambda p, _: torch.zeros_like(p))),
    ("chunked_local_attention", "the chunks", _set(3, lambda c, _: 10 ** 6)),
    ("attention_sinks", "the sinks", _set(3, lambda s, _: torch.full_like(s, -1e4))),
    ("attention_sinks", "the window", _set(4, lambda w, _: 10 ** 6)),
    ("mla_decode_paged", "the rope part of the key", _set(0, _no_rope_part)),
    ("paged_attention_v1_alibi", "ALiBi", _set(5, lambda s, _: torch.zeros_like(s))),
    ("moe_fused_experts", "the routing weights", _set(3, lambda w, _: torch.full_like(w, 0.5))),
    ("moe_block_shared_expert", "the renormalisation", _set(8, lambda r, _: not r)),
    ("moe_block_shared_expert", "the shared gate", _set(6, lambda g, _: torch.zeros_like(g))),
    ("moe_llama4_block", "the input score", _set(1, _top_logit_40)),
    ("qkv_rope_cache_write", "the positions", _set(2, lambda p, _: torch.zeros_like(p))),
    ("decoder_layer_rope_gqa", "the rotation", _set(8, lambda s, _: torch.zeros_like(s))),
    ("gemma2_mlp_sandwich", "Gemma's 1 + w", _set(1, lambda w, _: torch.zeros_like(w))),
]


def _tiny_case(task, dtype="float32"):
    return next(c for c in plan_cases(task, "cpu", 20261127)
                if "tiny" in c.shape.tags and c.dtype == dtype and c.mode == "standard"
                and c.layout == "contiguous")


@pytest.mark.parametrize("name, forgets, cheat", WRONG, ids=[f"{n}-{f}" for n, f, _ in WRONG])
def test_a_kernel_that_forgets_part_of_the_block_fails(suite, name, forgets, cheat):
    probe = TaskProbe(suite[f"fusion.{name}"])
    case = _tiny_case(probe.task)
    inputs = probe.make(case)
    assert probe.judge(probe.expected(inputs), inputs, case.dtype) is None
    wrong = probe.expected(tuple(cheat(list(inputs))))
    assert probe.judge(wrong, inputs, case.dtype) is not None, f"forgetting {forgets} passes"


def test_moe_align_order_inside_an_expert_is_fixed(suite):
    """vLLM's CUDA kernel places an expert's pairs with atomics; the contract fixes increasing
    pair order, so an answer with two pairs of one expert swapped fails."""
    probe = TaskProbe(suite["fusion.moe_align_permute"])
    case = replace(_tiny_case(probe.task), dtype="float16")
    inputs = probe.make(case)
    sorted_ids, expert_ids, total, permuted = probe.expected(inputs)
    assert probe.judge([sorted_ids, expert_ids, total, permuted], inputs, case.dtype) is None
    swapped_ids, swapped_rows = sorted_ids.clone(), permuted.clone()
    swapped_ids[[0, 1]] = sorted_ids[[1, 0]]  # expert 0 holds every token: pairs 0 and 1 real
    swapped_rows[[0, 1]] = permuted[[1, 0]]
    assert probe.judge([swapped_ids, expert_ids, total, swapped_rows], inputs,
                       case.dtype) is not None
