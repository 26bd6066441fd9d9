#!/usr/bin/env bash
# Issue 26 on the GPU (docs/gpu.md run 15): the CPU's verdicts for the classes that only a GPU
# settles — custom ops (threat 33), host objects through a launch (34), fake randomness (35),
# TF32 (31), glue (32) — through bwrap with timing off, four jobs at once; and the interpreter's
# parity kernels (fp32_dots: TF32 truncates or rounds). The CPU side of the parity check is made
# here first: TRITON_INTERPRET=1 python scripts/gpu/parity_kernels.py cpu .device/parity-cpu.pt
# The body watch around compiled launches (docs/decisions.md, issue 26 residuals): grid
# functions and pre-run hooks doing PyTorch are D207, split-K zeroing by an autotune pre_hook and
# reset_to_zero (benchmarked over two configs) and a shapes-only grid function pass — claims made
# for the GPU that only the CPU had checked (tests/fixtures/dynamic/gpu_launch: out of the slow
# CPU corpus test, which globs dynamic/*.py only).
# Carry: [".whl", ".device"]. Results in $OUT.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu26.txt"
$PY scripts/gpu/parity_kernels.py cuda /tmp/parity-gpu.pt >> "$OUT/gpu26.txt" 2>&1
$PY scripts/gpu/parity_kernels.py compare .device/parity-cpu.pt /tmp/parity-gpu.pt 2>&1 | tee -a "$OUT/gpu26.txt"
rm -rf /tmp/c26 && mkdir -p /tmp/c26
for f in ${FIXTURES:-d206_relu_in_custom_op_named_contiguous incorrect_stale_memory_in_triton_op_named_clone passed_addcmul_triton_op passed_relu_triton_op passed_silu_custom_op_mutates_out d207_matmul_through_constexpr_tensors d207_torch_module_as_constexpr passed_matmul_host_derived_constexprs random_dropout_seed_rotates_one_stream incorrect_tf32_dot_for_float32 d206_permute_contiguous_memcpy d206_roll_narrow_copy_memcpy \
  d207_matmul_in_a_builtin_pre_run_hook d207_matmul_in_a_grid_function d206_matmul_in_an_autotune_pre_hook \
  passed_splitk_matmul_autotune_hooks gpu_launch/d207_matmul_in_a_grid_lambda \
  gpu_launch/d207_matmul_in_a_python_pre_run_hook gpu_launch/d207_matmul_in_a_partial_builtin_pre_run_hook \
  gpu_launch/passed_matmul_grid_function_reads_shapes gpu_launch/passed_splitk_matmul_two_configs_reset_to_zero}; do
  cp "tests/fixtures/dynamic/$f.py" /tmp/c26/
done
start=$(date +%s)
timeout "${LIMIT_S:-540}" $PY -m kgb.suite.corpus /tmp/c26 --device cuda --sandbox bwrap \
  --static off --gpu-shapes 2 --baselines none --timing off --jobs 4 --out /tmp/corpus-26 \
  > "$OUT/corpus-26.txt" 2>&1
echo "corpus rc=$? after $(( $(date +%s) - start )) s" >> "$OUT/corpus-26.txt"
cp /tmp/corpus-26/corpus.json "$OUT/corpus-26.json" 2>/dev/null
tail -30 "$OUT/corpus-26.txt"
