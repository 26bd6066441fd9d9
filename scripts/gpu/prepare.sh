#!/usr/bin/env bash
# Run HERE (the dev machine, which reaches the package registries) before using the lent GPU
# machine, which reaches nothing: fetch what it lacks into git-ignored folders that the device
# tool can carry (`carry: [".whl", ".device"]`).
#   .whl/               libcst, PyYAML and radon (+ mando, colorama, six) wheels for the GPU
#                       machine's Python 3.12 (matplotlib absent there: no report.html)
#   .device/bwrap-deb/  bubblewrap unpacked from Debian's .deb (no install needed there)
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .whl .device
pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .whl libcst pyyaml radon mando colorama six
(cd .device && apt-get download bubblewrap >/dev/null)
rm -rf .device/bwrap-deb && dpkg -x .device/bubblewrap_*.deb .device/bwrap-deb
ls .whl .device/bwrap-deb/usr/bin/bwrap
