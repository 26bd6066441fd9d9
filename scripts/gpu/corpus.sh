#!/usr/bin/env bash
# Both cheating corpora on the GPU through bwrap (issue 10: the launch and timing items on the
# device): tests/fixtures/dynamic_gpu (timing cheats, the tutorial's warmup launch) first, then
# the CPU corpus tests/fixtures/dynamic. About 6 + 10 minutes on an H100. Results in $OUT.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
for corpus in dynamic_gpu dynamic; do
  rm -rf "/tmp/corpus-$corpus"
  timeout "${LIMIT_S:-560}" $PY -m kgb.suite.corpus "tests/fixtures/$corpus" --device cuda \
    --sandbox bwrap --static off --gpu-shapes 2 --out "/tmp/corpus-$corpus" \
    > "$OUT/corpus-$corpus.txt" 2>&1
  echo "rc=$?" >> "$OUT/corpus-$corpus.txt"
  cp "/tmp/corpus-$corpus/corpus.json" "$OUT/corpus-$corpus.json" 2>/dev/null
  tail -25 "$OUT/corpus-$corpus.txt"
done
