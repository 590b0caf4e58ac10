#!/usr/bin/env bash
# End-to-end: an NVIDIA GPU found by the gpu source reaches a podman container through CDI, and a
# program in the container loads the driver's libraries by SONAME with the container's own loader.
#
# The driver root is built here, in the layout a lent H100 machine showed: the driver's libraries in
# /usr/local/nvidia/lib64 (outside every default library directory), SONAME links in /usr/lib, merged
# /usr (/lib -> usr/lib, /bin -> usr/bin), and an /etc/ld.so.cache written by glibc's own
# `ldconfig -r` naming both. The libraries are the tests' fake NVML (discovery-gpu/target/native, built
# by `./mvnw verify`) and a fake libcuda built here from fixtures/fake-libcuda.c; NVML is loaded from
# the fake with --nvml-library, configured by FAKE_NVML_CONFIG.
#
# The image is busybox plus this host's glibc in Debian's directories, and no ld.so.cache: its loader
# searches /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib and /usr/lib, as a distribution
# image's does. fixtures/gpu-app.c dlopens libcuda.so.1 and libnvidia-ml.so.1 and asks each for its
# devices. Without the CDI device it must fail to load them (the control); with it, libcuda.so.1 loads
# through the /usr/lib link the spec mounts too, and with the LD_LIBRARY_PATH of NVIDIA's CUDA images
# both load from /usr/local/nvidia/lib64. podman conventions as in podman-cdi.sh (private state, private
# /etc/cdi and /var/run/cdi).
#
# Section 3 prepares a claim whose GpuConfig asks for MPS through the agent's Prepare (the jars of
# ./mvnw -pl cli -am package) and checks its container's MPS environment, pipe directory and /dev/shm (the
# daemon's own, where the stand-in daemon leaves a marker); section 4 does it again with the daemon's
# size-limited tmpfs, inside a private mount namespace of its own.
#
# Environment:
#   NODEATLAS   command to run (default ./nodeatlas), e.g. "java -jar cli/target/nodeatlas.jar"
# Needs root, podman, runc, busybox-static, jq, gcc and ldconfig. Idempotent; leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
fixtures=$repo/.ci/e2e/fixtures
fake_nvml=$repo/discovery-gpu/target/native/libnvidia-ml.so.1
read -r -a nodeatlas <<< "${NODEATLAS:-./nodeatlas}"
start=$(date +%s)
version=550.54.15

source .ci/e2e/lib/podman-sandbox.sh
e2e_require podman runc jq busybox unshare gcc
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
[[ -x $ldconfig ]] || fail "glibc's ldconfig is not installed"
[[ -f $fake_nvml ]] || fail "$fake_nvml is missing: run ./mvnw verify (or test-compile in discovery-gpu) first"

build=$(mktemp -d /tmp/nodeatlas-gpu-build.XXXXXX)
e2e_cleanup_extra() { rm -rf "$build"; }
gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$build/gpu-app" "$fixtures/gpu-app.c" -ldl
gcc -std=c11 -shared -fPIC -Wall -Wextra -Werror -Wl,-soname,libcuda.so.1 -o "$build/libcuda.so.$version" \
  "$fixtures/fake-libcuda.c"

# The image: busybox, the app, and this host's glibc for it, merged-/usr like Debian's images.
e2e_rootfs_extra() {
  local root=$1 lib
  mkdir -p "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib64" "$root/etc"
  ln -s usr/lib "$root/lib"
  ln -s usr/lib64 "$root/lib64"
  cp "$build/gpu-app" "$root/bin/gpu-app"
  for lib in $( { ldd "$build/gpu-app"; ldd "$fake_nvml"; } | grep -o '/[^ ]*' | sort -u); do
    cp -L "$lib" "$root/usr${lib#/usr}"
  done
  [[ ! -e $root/etc/ld.so.cache ]] || fail "the image must have no ld.so.cache"
}
e2e_sandbox gpu sh cat ls test echo -- host

# --- the driver root ------------------------------------------------------------------------------------
# A driver root apart from the host root, as a driver container's /run/nvidia/driver is: the spec's
# host paths lie under it, so the runtime on this machine finds them (a --host-root fixture's would
# name the fixture's host, not this one). This host has no /dev/nvidia*, so the GPU gets no device
# node here (podman-cdi.sh checks GPU nodes); the driver's files are the subject.
h=$W/host
mkdir -p "$h/usr/local/nvidia/lib64" "$h/usr/lib" "$h/usr/bin" "$h/etc"
ln -s usr/lib "$h/lib"
ln -s usr/bin "$h/bin"
cp "$fake_nvml" "$h/usr/local/nvidia/lib64/libnvidia-ml.so.$version"
cp "$build/libcuda.so.$version" "$h/usr/local/nvidia/lib64/"
echo /usr/local/nvidia/lib64 > "$h/etc/ld.so.conf"
# glibc's ldconfig, chrooted into the host root: makes the SONAME links and writes etc/ld.so.cache.
# The host's own SONAME link in /usr/lib, to the versioned file (ldconfig makes the one beside it).
ln -s ../local/nvidia/lib64/libcuda.so.$version "$h/usr/lib/libcuda.so.1"
"$ldconfig" -r "$h" 2> >(grep -v "Can't stat\|No such file" >&2 || true)
[[ -L $h/usr/local/nvidia/lib64/libcuda.so.1 ]] || fail "ldconfig made no libcuda.so.1 link"
listed=$("$ldconfig" -p -C "$h/etc/ld.so.cache")
grep -q "libcuda.so.1 (libc6,x86-64) => /usr/local/nvidia/lib64/libcuda.so.1" <<< "$listed" \
  || fail "the host's ld.so.cache does not name /usr/local/nvidia/lib64: $listed"
grep -Eq "libcuda.so.1 \(libc6,x86-64\) => (/usr)?/lib/libcuda.so.1" <<< "$listed" \
  || fail "the host's ld.so.cache does not name the /usr/lib link: $listed"
printf '#!/bin/sh\necho "nvidia-smi of the host driver"\n' > "$h/usr/bin/nvidia-smi"
chmod 755 "$h/usr/bin/nvidia-smi"
cat > "$W/fake-nvml.conf" <<CONF
driver.version=$version
cuda.driver.version=12040
device.count=1
device.0.name=NVIDIA H100 80GB HBM3
device.0.uuid=GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11
device.0.minor=0
device.0.pci.busid=00000000:18:00.0
device.0.memory.total=85520809984
CONF
pass "driver root: libraries in /usr/local/nvidia/lib64, ld.so.cache by ldconfig -r naming it and /usr/lib"

# --- 1. discover and generate --------------------------------------------------------------------------
echo "==> cdi generate --sources gpu --nvidia-driver-root $h"
FAKE_NVML_CONFIG=$W/fake-nvml.conf "${nodeatlas[@]}" cdi generate --nvidia-driver-root "$h" --sources gpu \
  --nvml-library "$fake_nvml" --output-dir "$W/cdi" > "$W/generate.out" 2>&1 \
  || fail "cdi generate failed: $(cat "$W/generate.out")"
cat "$W/generate.out"
spec=$W/cdi/nodeatlas.io-gpu.json
[[ -f $spec ]] || fail "no GPU spec written: $(ls "$W/cdi")"
grep -qi 'ld.so.cache\|outside' "$W/generate.out" && fail "generate warned about the driver files: $(cat "$W/generate.out")"
mounts=$(jq -r '.devices[] | select(.name == "gpu-0") | .containerEdits.mounts[].containerPath' "$spec")
jq -e --arg h "$h" '[.devices[] | select(.name == "gpu-0") | .containerEdits.mounts[]
  | select(.hostPath != $h + .containerPath)] | length == 0' "$spec" >/dev/null \
  || fail "a mount's host path is not the driver root joined with its container path: $(cat "$spec")"
for want in /usr/local/nvidia/lib64/libcuda.so.$version /usr/local/nvidia/lib64/libcuda.so.1 \
  /usr/local/nvidia/lib64/libnvidia-ml.so.$version /usr/local/nvidia/lib64/libnvidia-ml.so.1 /usr/bin/nvidia-smi; do
  grep -qx "$want" <<< "$mounts" || fail "gpu-0 does not mount $want: $mounts"
done
grep -Eqx "(/usr)?/lib/libcuda.so.1" <<< "$mounts" || fail "gpu-0 does not mount the /usr/lib link: $mounts"
[[ $(grep -c nvidia-smi <<< "$mounts") == 1 ]] || fail "nvidia-smi is mounted more than once (/bin is /usr/bin): $mounts"
pass "gpu-0 mounts the libraries where the host's ld.so.cache names them, and nvidia-smi once"

# --- 2. the container ---------------------------------------------------------------------------------
run_app() { # [DEVICE] -- [PODMAN-ARGS]: the app, with the fake's configuration where FAKE_NVML_CONFIG says
  local args=()
  [[ $1 != -- ]] && { args+=(--device "$1"); shift; }
  shift
  podman_in "$W/cdi" run --rm --network none "${args[@]}" "$@" -e FAKE_NVML_CONFIG=/etc/fake-nvml.conf \
    -v "$W/fake-nvml.conf:/etc/fake-nvml.conf:ro" "$image" sh -c '/bin/gpu-app; echo "exit $?"' \
    2> >(grep -v oom_score_adj >&2)
}
out=$(run_app --)
grep -q "libcuda.so.1: libcuda.so.1: cannot open shared object file" <<< "$out" && grep -qx "exit 1" <<< "$out" \
  || fail "without the CDI device the app found a driver library: $out"
pass "control: without the CDI device the container has no driver library"

# The image's default search path: libcuda.so.1 through the host's /usr/lib link, which the spec
# mounts too; libnvidia-ml.so.1, only in /usr/local/nvidia/lib64 on this host, stays out of reach.
out=$(run_app nodeatlas.io/gpu=gpu-0 --)
echo "$out" | sed 's/^/    /'
grep -Eqx "libcuda.so.1 loaded from (/usr)?/lib/libcuda.so.1" <<< "$out" || fail "libcuda.so.1 not loaded through the /usr/lib link: $out"
grep -qx "cuInit, cuDeviceGetCount: error 0, 1 device(s)" <<< "$out" || fail "libcuda did not answer: $out"
grep -q "libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open shared object file" <<< "$out" \
  || fail "libnvidia-ml.so.1 was found outside the default path without LD_LIBRARY_PATH: $out"
pass "gpu-0, default path: libcuda.so.1 loads through the /usr/lib link and answers"

# With LD_LIBRARY_PATH=/usr/local/nvidia/lib64, as NVIDIA's CUDA images set it: both from there.
out=$(run_app nodeatlas.io/gpu=gpu-0 -- -e LD_LIBRARY_PATH=/usr/local/nvidia/lib64)
echo "$out" | sed 's/^/    /'
grep -qx "libcuda.so.1 loaded from /usr/local/nvidia/lib64/libcuda.so.1" <<< "$out" || fail "libcuda.so.1: $out"
grep -qx "libnvidia-ml.so.1 loaded from /usr/local/nvidia/lib64/libnvidia-ml.so.1" <<< "$out" || fail "libnvidia-ml.so.1: $out"
grep -qx "cuInit, cuDeviceGetCount: error 0, 1 device(s)" <<< "$out" || fail "libcuda did not answer: $out"
grep -qx "nvmlInit_v2, nvmlDeviceGetCount_v2: error 0, 1 device(s)" <<< "$out" || fail "NVML did not answer: $out"
grep -qx "exit 0" <<< "$out" || fail "the app failed: $out"
pass "gpu-0 with the CUDA images' LD_LIBRARY_PATH: libcuda.so.1 and libnvidia-ml.so.1 load from /usr/local/nvidia/lib64 and answer"

out=$(podman_in "$W/cdi" run --rm --network none --device nodeatlas.io/gpu=gpu-0 "$image" \
  sh -c '/usr/bin/nvidia-smi && ! (echo x > /usr/local/nvidia/lib64/libcuda.so.1) 2>/dev/null' \
  2> >(grep -v oom_score_adj >&2)) || fail "nvidia-smi or read-only libraries: $out"
grep -q "nvidia-smi of the host driver" <<< "$out" || fail "nvidia-smi did not run: $out"
pass "the driver's nvidia-smi runs, the driver's files are read-only"

# --- 3. a claim's sharing configuration, through the agent's Prepare --------------------------------------
# A claim for gpu-0 with a gpu.nodeatlas.io GpuConfig for MPS, prepared by the agent's real Prepare path
# (io.nodeatlas.agent.testing.PrepareConfigured: ClaimPreparer, checkpoint, claim CDI spec, the gpu family's
# claim-time work), the MPS control daemon played by discovery-gpu/src/test/tools/fake-nvidia-cuda-mps-control.
echo "==> prepare an MPS claim (agent)"
jar=$repo/cli/target/nodeatlas.jar
tests=$(ls "$repo"/agent/target/agent-*-tests.jar 2>/dev/null | head -1)
[[ -f $jar && -n $tests ]] || fail "build first: ./mvnw -B -pl cli -am package -DskipTests (needs $jar and the agent test jar)"
e2e_require java
FAKE_NVML_CONFIG=$W/fake-nvml.conf "${nodeatlas[@]}" discover --nvidia-driver-root "$h" --sources gpu \
  --nvml-library "$fake_nvml" -o json > "$W/report.json" 2> "$W/discover.err" || fail "discover failed: $(cat "$W/discover.err")"
install -m 0755 discovery-gpu/src/test/tools/fake-nvidia-cuda-mps-control "$W/mps-control"
cat > "$W/mps.json" <<'JSON'
{"apiVersion": "gpu.nodeatlas.io/v1alpha1", "kind": "GpuConfig",
 "sharing": {"strategy": "MPS", "mpsConfig": {"defaultActiveThreadPercentage": 30, "defaultPinnedDeviceMemoryLimit": "4Gi"}}}
JSON
mkdir -p "$W/state" "$W/claims"
prepare=(java -cp "$jar:$tests" io.nodeatlas.agent.testing.PrepareConfigured)
# gpu.mpsShmSize=0: the daemon's /dev/shm is a plain directory, never a tmpfs on this host (the tmpfs is
# MpsShmTest's, in a namespace of its own); the daemon still runs in its private mount namespace with it there.
settings=("gpu.nvmlLibrary=$fake_nvml" "gpu.driverRoot=$h" "gpu.mpsControl=$W/mps-control" "gpu.mpsShmSize=0")
FAKE_NVML_CONFIG=$W/fake-nvml.conf "${prepare[@]}" prepare "$W/report.json" "$W/state" "$W/claims" "${settings[@]}" \
  "mps:gpu-0:$W/mps.json" > "$W/prepare.out" 2> "$W/prepare.err" || fail "prepare failed: $(cat "$W/prepare.out" "$W/prepare.err")"
cat "$W/prepare.out"
read -r -a line < <(grep "^mps ok " "$W/prepare.out")
pipe=$W/state/families/mps/GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11/pipe
[[ $(cat "$pipe/control" 2>/dev/null) == GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11 ]] \
  || fail "no MPS control daemon for gpu-0 under $pipe: $(ls -R "$W/state/families" 2>&1)"
grep -qx "set_default_active_thread_percentage 30" "${pipe%/pipe}/log/control.log" \
  || fail "the claim's thread percentage did not reach the daemon: $(cat "${pipe%/pipe}/log/control.log")"
pass "Prepare started the claim's MPS control daemon with its defaults"
out=$(podman_in "$W/claims" run --rm --network none --device "${line[3]}" "$image" \
  sh -c 'echo "pipe=$CUDA_MPS_PIPE_DIRECTORY log=$CUDA_MPS_LOG_DIRECTORY threads=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE limit=$CUDA_MPS_PINNED_DEVICE_MEM_LIMIT sharing=$NODEATLAS_GPU_SHARING"
    cat /tmp/nvidia-mps/control; test -d /tmp/nvidia-mps-log && echo "log directory"
    echo "shm=$(cat /dev/shm/fake-mps-daemon)"' \
  2> >(grep -v oom_score_adj >&2)) || fail "the MPS claim's container failed: $out"
echo "$out" | sed 's/^/    /'
grep -qx "pipe=/tmp/nvidia-mps log=/tmp/nvidia-mps-log threads=30 limit=0=4096M sharing=MPS" <<< "$out" \
  || fail "the container's MPS environment: $out"
grep -qx "GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11" <<< "$out" || fail "the container does not see the daemon's pipe directory: $out"
grep -qx "log directory" <<< "$out" || fail "the container has no MPS log directory: $out"
pass "the MPS claim's container has the daemon's pipe and log directories and the client limits"
daemon_pid=$(cat "$pipe/nvidia-cuda-mps-control.pid")
grep -qx "shm=$daemon_pid GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11" <<< "$out" \
  || fail "the container's /dev/shm is not the daemon's (daemon $daemon_pid): $out"
if [[ -f /dev/shm/fake-mps-daemon ]] && grep -q "^$daemon_pid " /dev/shm/fake-mps-daemon; then
  fail "the daemon wrote into the host's /dev/shm"
fi
pass "the MPS claim's container shares the daemon's /dev/shm (its marker), the host's /dev/shm untouched"
FAKE_NVML_CONFIG=$W/fake-nvml.conf "${prepare[@]}" unprepare "$W/report.json" "$W/state" "$W/claims" "${settings[@]}" \
  "mps:gpu-0" > "$W/unprepare.out" 2>&1 || fail "unprepare failed: $(cat "$W/unprepare.out")"
[[ ! -e ${pipe%/pipe} ]] || fail "the daemon's directory outlived Unprepare"
pass "Unprepare stopped the daemon and removed its directories"

# --- 4. the daemon's tmpfs, in a mount namespace of this check's own -----------------------------------------
# With the default --gpu-mps-shm-size and root's CAP_SYS_ADMIN the agent mounts a size-limited tmpfs as the
# daemon's /dev/shm. Here the agent's Prepare, the container and Unprepare run in one private mount namespace
# (mount_namespaces(7)), so the tmpfs is seen by the container and never by the host, even if a step fails.
echo "==> the MPS daemon's tmpfs reaches the container (private mount namespace)"
tmpfs_check=$(cat <<'EOS'
set -euo pipefail
# The agent mounts the tmpfs only where it reaches the runtime: on a shared mount (here a peer group of this
# namespace alone, as a host's / or a pod's Bidirectional volume is).
mount --bind "$W" "$W" && mount --make-shared "$W"
settings=("gpu.nvmlLibrary=$fake_nvml" "gpu.driverRoot=$h" "gpu.mpsControl=$W/mps-control" "gpu.mpsShmSize=16Mi")
rm -rf "$W/state" "$W/claims"; mkdir -p "$W/state" "$W/claims"
FAKE_NVML_CONFIG=$W/fake-nvml.conf "${prepare[@]}" prepare "$W/report.json" "$W/state" "$W/claims" "${settings[@]}" \
  "mps:gpu-0:$W/mps.json" > "$W/prepare.out" 2> "$W/prepare.err" || fail "prepare failed: $(cat "$W/prepare.out" "$W/prepare.err")"
read -r -a line < <(grep "^mps ok " "$W/prepare.out")
shm=$W/state/families/mps/GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11/shm
grep -q " $shm .* - tmpfs nodeatlas-mps-shm .*size=16384k" /proc/self/mountinfo \
  || fail "no 16 MiB tmpfs at $shm: $(grep nodeatlas /proc/self/mountinfo || true) $(cat "$W/prepare.err")"
out=$(podman_in "$W/claims" run --rm --network none --device "${line[3]}" "$image" \
  sh -c 'echo "shm=$(cat /dev/shm/fake-mps-daemon)"' 2> >(grep -v oom_score_adj >&2)) || fail "the container failed: $out"
daemon_pid=$(cat "${shm%/shm}/pipe/nvidia-cuda-mps-control.pid")
grep -qx "shm=$daemon_pid GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11" <<< "$out" \
  || fail "the container's /dev/shm is not the daemon's tmpfs (daemon $daemon_pid): $out"
FAKE_NVML_CONFIG=$W/fake-nvml.conf "${prepare[@]}" unprepare "$W/report.json" "$W/state" "$W/claims" "${settings[@]}" \
  "mps:gpu-0" > "$W/unprepare.out" 2>&1 || fail "unprepare failed: $(cat "$W/unprepare.out")"
! grep -q " $shm " /proc/self/mountinfo || fail "the tmpfs outlived Unprepare"
[[ ! -e ${shm%/shm} ]] || fail "the daemon's directory outlived Unprepare"
EOS
)
unshare -m --propagation private -- bash -c "$(declare -p P W image prepare h fake_nvml); $(declare -f podman_in fail); \
  $tmpfs_check" || fail "the tmpfs check failed"
! grep -q nodeatlas-mps-shm /proc/self/mountinfo || fail "a tmpfs of the check reached the host's mount table"
pass "the daemon's 16 MiB tmpfs is the container's /dev/shm (its marker), unmounted by Unprepare, never on the host"
echo "podman-gpu: all checks passed in $(($(date +%s) - start)) s"
