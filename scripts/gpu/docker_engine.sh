# Sourced ON the lent GPU machine (after env.sh): brings Debian's Docker engine from the carried
# kit (.device/dockerkit.tar.xz, made by DOCKER=1 scripts/gpu/prepare.sh) and starts dockerd
# without networking (--iptables=false --bridge=none: kgb's containers have no network).
kit=/tmp/dockerkit
[ -d $kit ] || tar -xJf .device/dockerkit.tar.xz -C /tmp
[ -f .device/dockerkit-libs.tar ] && tar -xf .device/dockerkit-libs.tar -C /tmp  # libs added later
# The kit's libraries only where this system lacks them (never a second libc of another build).
mkdir -p $kit/need
have=$(ldconfig -p | awk 'NR > 1 {print $1}')
for lib in $kit/lib/*; do grep -qx "$(basename "$lib")" <<< "$have" || cp "$lib" $kit/need/; done
echo "libraries the kit supplies: $(ls $kit/need | tr '\n' ' ')" | tee -a "$OUT/gpu.txt"
export PATH=$kit/bin:$PATH
if ! [ -S /var/run/docker.sock ]; then
  LD_LIBRARY_PATH=$kit/need:${LD_LIBRARY_PATH:-} setsid dockerd --iptables=false --ip6tables=false \
    --bridge=none --data-root /tmp/docker-data --exec-root /tmp/docker-exec \
    > "$OUT/dockerd.log" 2>&1 < /dev/null &
  for _ in $(seq 60); do [ -S /var/run/docker.sock ] && $PY -c "import docker; docker.from_env().ping()" 2>/dev/null && break; sleep 1; done
fi
$PY -c "import docker; c = docker.from_env(); v = c.version(); i = c.info(); print('docker engine', v['Version'], 'runtimes', sorted(i.get('Runtimes', {})), 'cgroup', i.get('CgroupVersion'), 'storage', i.get('Driver'))" 2>&1 | tee -a "$OUT/gpu.txt"

