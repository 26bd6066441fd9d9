# Sourced by the scripts beside it ON the lent GPU machine: kgb's few missing wheels, the carried
# bubblewrap, the machine's own torch/triton Python.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl 2>/dev/null || { echo "no .whl: run scripts/gpu/prepare.sh"; exit 2; }
export PYTHONPATH=/tmp/site:$PWD KGB_BWRAP=$PWD/.device/bwrap-deb/usr/bin/bwrap
export CUDA_DEVICE_ORDER=PCI_BUS_ID PYTHONUNBUFFERED=1
PY=${PY:-/opt/torch/.venv/bin/python3}
