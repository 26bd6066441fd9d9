#!/usr/bin/env bash
# Run HERE (the dev machine, which reaches the package registries) before using the lent GPU
# machine, which reaches nothing: fetch what it lacks into git-ignored folders that the device
# tool can carry (`carry: [".whl", ".device"]`).
#   .whl/               libcst, PyYAML and radon (+ mando, colorama, six) wheels for the GPU
#                       machine's Python 3.12 (matplotlib absent there: no report.html)
#   .device/bwrap-deb/  bubblewrap unpacked from Debian's .deb (no install needed there)
# With KERNELBENCH=<a KernelBench checkout or git dir>, also (scripts/gpu/kernelbench.sh):
#   .device/kernelbench/kernelbench/  KernelBench's evaluator package, from that checkout's HEAD
#   .whl/kernelbench/   its dependencies (pydantic, requests, tqdm, numpy's friends) for cp312
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .whl .device
pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .whl libcst pyyaml radon mando colorama six
(cd .device && apt-get download bubblewrap >/dev/null)
rm -rf .device/bwrap-deb && dpkg -x .device/bubblewrap_*.deb .device/bwrap-deb
if [ -n "${KERNELBENCH:-}" ]; then
  rm -rf .device/kernelbench .whl/kernelbench && mkdir -p .device/kernelbench .whl/kernelbench
  git -C "$KERNELBENCH" archive HEAD src/kernelbench | tar -x -C .device/kernelbench --strip-components=1
  pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl/kernelbench pydantic requests tqdm python-dotenv
fi
ls .whl .device/bwrap-deb/usr/bin/bwrap
