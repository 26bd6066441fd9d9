#!/usr/bin/env bash
# Run HERE (the dev machine, which reaches the package registries) before using the lent GPU
# machine, which reaches nothing: fetch what it lacks into git-ignored folders that the device
# tool can carry (`carry: [".whl", ".device"]`).
#   .whl/               libcst, PyYAML and radon (+ mando, colorama, six) wheels for the GPU
#                       machine's Python 3.12 (matplotlib absent there: no report.html)
#   .device/bwrap-deb/  bubblewrap unpacked from Debian's .deb (no install needed there)
# With RAY=1, also .ray/ (Ray for scripts/gpu/ray_scale.sh; carry [".whl", ".ray"]).
# With KERNELBENCH=<a KernelBench checkout or git dir>, also (scripts/gpu/kernelbench.sh and
# scripts/gpu/bench_throughput.sh):
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
if [ -n "${DOCKER:-}" ]; then  # scripts/gpu/docker_gpu.sh: a Docker engine for the GPU machine
  # Debian's docker.io, containerd, runc and tini, their binaries (and the libraries dockerd
  # links that a slim image may lack) in one xz tarball under the call's 64 MiB; the docker SDK.
  pip download -q --no-deps --only-binary=:all: -d .whl docker
  kit=$(mktemp -d); (cd "$kit" && apt-get download docker.io containerd runc tini >/dev/null 2>&1)
  for f in "$kit"/*.deb; do dpkg -x "$f" "$kit/x"; done
  mkdir -p "$kit/dockerkit/bin" "$kit/dockerkit/lib"
  cp "$kit"/x/usr/sbin/{dockerd,runc,docker-proxy} "$kit"/x/usr/bin/{containerd,containerd-shim-runc-v2} "$kit/dockerkit/bin/"
  cp "$kit/x/usr/bin/tini-static" "$kit/dockerkit/bin/docker-init"
  for lib in $(ldd "$kit/dockerkit/bin/dockerd" | awk '/=>/ {print $3}'); do
    case "$(basename "$lib")" in libc.so*|libm.so*|libpthread*|libdl*|ld-linux*) ;; *) cp -L "$lib" "$kit/dockerkit/lib/";; esac
  done
  XZ_OPT='-6 -T0' tar -cJf .device/dockerkit.tar.xz -C "$kit" dockerkit && rm -rf "$kit"
  ls -la .device/dockerkit.tar.xz
fi
if [ -n "${RAY:-}" ]; then  # scripts/gpu/ray_scale.sh: Ray for the GPU machine, in one call
  # Ray 2.60.0's cp312 wheel (79 MB) is above a call's 64 MiB: installed here for cp312 into a
  # folder, its Java jars and dashboard source maps dropped (unused by kgb), xz'd (~39 MB) into
  # .ray/ with the few dependencies the machine's image lacks; carry [".whl", ".ray"].
  site=$(mktemp -d)
  pip install -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --target "$site" \
    ray==2.60.0 jsonschema referencing rpds-py jsonschema-specifications attrs
  rm -rf "$site"/ray/jars "$site"/bin "$site"/ray/dashboard/client/build/static/js/*.map
  mkdir -p .ray && rm -rf .ray/bwrap-deb && cp -r .device/bwrap-deb .ray/
  XZ_OPT='-6 -T0' tar -cJf .ray/ray-site.tar.xz -C "$site" . && rm -rf "$site"
  ls -la .ray/ray-site.tar.xz
fi
ls .whl .device/bwrap-deb/usr/bin/bwrap
