#!/usr/bin/env bash
# End-to-end: an AMD GPU found by the accel source reaches a podman container through CDI.
#
# The host is .ci/e2e/fixtures/hostroot-accel: one AMD Instinct MI210 on amdgpu behind a PCIe switch,
# card0 (226:0), renderD128 (226:128), and amdkfd's /dev/kfd (235:0), in the kernel's sysfs layout with
# relative symlinks. `cdi generate --sources accel` writes the specs into a private directory; podman
# (4.3.1, runc, a busybox rootfs imported as a local image, state in a private scratch dir) reads them
# from /etc/cdi and /var/run/cdi bind-mounted in a private mount namespace, so the host's real CDI dirs
# are never read or written (the conventions of podman-cdi.sh).
#
# What a real host's devtmpfs would hold is made with mknod in a private directory, from the fixture's
# sysfs `dev` files; inside the container each node must be a char device with the same major:minor,
# and the device cgroup must allow it. The example claim (examples/accel/) is matched against the same
# host through the deploy/ DeviceClasses.
#
# Environment:
#   NODEATLAS   command to run (default ./nodeatlas), e.g. "java -jar agent/target/nodeatlas.jar"
# Needs root, podman, runc, busybox-static and jq. Idempotent; leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
host=$repo/.ci/e2e/fixtures/hostroot-accel
read -r -a nodeatlas <<< "${NODEATLAS:-./nodeatlas}"
start=$(date +%s)

source .ci/e2e/lib/podman-sandbox.sh
e2e_require podman runc jq busybox unshare mknod
[[ -L $host/sys/class/drm/renderD128 ]] || fail "$host is incomplete: sys/class/drm/renderD128 is not a symlink"

e2e_sandbox accel sh cat stat ls test echo -- dev/dri

run_with() { # DEVICE... -- COMMAND
  local args=()
  while [[ $1 != -- ]]; do args+=(--device "$1"); shift; done
  shift
  podman_in "$W/cdi" run --rm --network none "${args[@]}" "$image" sh -c "$*" 2> >(grep -v oom_score_adj >&2)
}

# --- the host's device nodes, as devtmpfs would create them from the sysfs dev numbers ---------------
gpu=$host/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0
declare -A expect # container path -> major:minor
for n in card0 renderD128; do
  dev=$(cat "$gpu/drm/$n/dev")
  mknod "$W/dev/dri/$n" c "${dev%%:*}" "${dev##*:}"
  expect[/dev/dri/$n]=$dev
done
dev=$(cat "$host/sys/devices/virtual/kfd/kfd/dev")
mknod "$W/dev/kfd" c "${dev%%:*}" "${dev##*:}"
expect[/dev/kfd]=$dev
host_node() { # container path -> "major:minor" of the private host node
  local p=$W/dev${1#/dev}
  [[ -c $p ]] || fail "$p is not a char device"
  echo "$((16#$(stat -c %t "$p"))):$((16#$(stat -c %T "$p")))"
}

# --- 1. discover and generate --------------------------------------------------------------------------
echo "==> discover and cdi generate --sources accel (host root $host)"
"${nodeatlas[@]}" discover --host-root "$host" --sources accel -o json > "$W/discover.json" \
  || fail "discover failed: $(cat "$W/discover.json")"
[[ $(jq -r '.sources.accel' "$W/discover.json") == ok ]] || fail "source accel did not run: $(jq -c .sources "$W/discover.json")"
[[ $(jq '.warnings | length' "$W/discover.json") == 0 ]] || fail "warnings: $(jq -c .warnings "$W/discover.json")"
[[ $(jq -r '[.devices[].name] | join(",")' "$W/discover.json") == accel-0000-03-00-0 ]] \
  || fail "devices: $(jq -c '[.devices[].name]' "$W/discover.json")"
d='.devices[0]'
[[ $(jq -r "$d.attributes[\"nodeatlas.io/vendor\"].string" "$W/discover.json") == amd ]] || fail "vendor is not amd"
[[ $(jq -r "$d.attributes[\"nodeatlas.io/type\"].string" "$W/discover.json") == gpu ]] || fail "type is not gpu"
[[ $(jq -r "$d.attributes[\"resource.kubernetes.io/pcieRoot\"].string" "$W/discover.json") == pci0000:00 ]] \
  || fail "pcieRoot is not the root complex above the switch"
[[ $(jq -r "$d.capacity[\"nodeatlas.io/memory\"]" "$W/discover.json") == "$(cat "$gpu/mem_info_vram_total")" ]] \
  || fail "memory capacity is not mem_info_vram_total"
pass "discover: accel-0000-03-00-0, vendor amd, type gpu, pcieRoot pci0000:00, memory = mem_info_vram_total"

"${nodeatlas[@]}" cdi generate --host-root "$host" --sources accel --output-dir "$W/cdi" > "$W/generate.out" \
  || fail "cdi generate failed: $(cat "$W/generate.out")"
cat "$W/generate.out"
spec=$W/cdi/nodeatlas.io-gpu.json
[[ -f $spec ]] || fail "no nodeatlas.io-gpu.json in $(ls "$W/cdi")"
[[ $(ls "$W/cdi") == nodeatlas.io-gpu.json ]] || fail "unexpected files: $(ls "$W/cdi")"
[[ $(jq -r .kind "$spec") == nodeatlas.io/gpu ]] || fail "kind is $(jq -r .kind "$spec")"
[[ $(jq -r .cdiVersion "$spec") == 0.3.0 ]] || fail "device nodes need cdiVersion 0.3.0, spec says $(jq -r .cdiVersion "$spec")"
[[ $(jq -r '[.devices[].name] | join(",")' "$spec") == accel-0000-03-00-0,all ]] \
  || fail "CDI devices: $(jq -c '[.devices[].name]' "$spec")"
"${nodeatlas[@]}" cdi validate "$W/cdi" > "$W/validate.out" || fail "our spec does not validate: $(cat "$W/validate.out")"
pass "spec nodeatlas.io/gpu at cdiVersion 0.3.0 with accel-0000-03-00-0 and all; cdi validate accepts it"

# --- 2. podman injects the GPU --------------------------------------------------------------------------
echo "==> podman run --device nodeatlas.io/gpu=accel-0000-03-00-0"
report='for p in /dev/dri/card0 /dev/dri/renderD128 /dev/kfd; do stat -c "%n|%F|%t|%T" "$p"; done;
  echo ---; cat /sys/fs/cgroup/devices/devices.list 2>/dev/null || echo none; echo ---; ls /dev /dev/dri'
for device in nodeatlas.io/gpu=accel-0000-03-00-0 nodeatlas.io/gpu=all; do
  out=$(run_with "$device" -- "$report") || fail "podman could not run $device: $out"
  nodes=$(sed -n '1,/^---$/p' <<< "$out"); cgroup=$(sed -n '/^---$/,/^---$/p' <<< "$out" | sed '1d;$d')
  for path in /dev/dri/card0 /dev/dri/renderD128 /dev/kfd; do
    line=$(grep "^$path|" <<< "$nodes") || fail "$device: $path missing in the container: $out"
    IFS='|' read -r _ ftype tmaj tmin <<< "$line"
    [[ $ftype == "character special file" ]] || fail "$device: $path is a $ftype"
    got=$((16#$tmaj)):$((16#$tmin))
    [[ $got == "${expect[$path]}" ]] || fail "$device: $path is $got in the container, sysfs says ${expect[$path]}"
    [[ $got == "$(host_node "$path")" ]] || fail "$device: $path is $got, the host node is $(host_node "$path")"
    if [[ $cgroup != none ]]; then
      grep -qx "c $got rwm" <<< "$cgroup" || fail "$device: no device cgroup rule 'c $got rwm' in: $cgroup"
    fi
    pass "$device: $path is c $got as on the host$([[ $cgroup != none ]] && echo ", allowed rwm in the device cgroup")"
  done
done

out=$(run_with nodeatlas.io/gpu=accel-0000-03-00-0 -- 'ls /dev/dri; echo ---; ls /dev')
[[ $(sed -n '1,/^---$/p' <<< "$out" | tr '\n' ' ') == "card0 renderD128 --- " ]] \
  || fail "/dev/dri holds more than this GPU's nodes: $out"
grep -q nvidia <<< "$out" && fail "an AMD GPU's container got NVIDIA nodes: $out"
pass "the container's /dev/dri holds this GPU's two nodes and nothing else"

# --- 3. the deploy/ DeviceClasses and the example claim select this GPU ---------------------------------
echo "==> nodeatlas match -f deploy/deviceclasses.yaml -f examples/accel/claim.yaml"
"${nodeatlas[@]}" match -f deploy/deviceclasses.yaml -f examples/accel/claim.yaml --discovered "$W/discover.json" \
  > "$W/match.out" || fail "the example claim does not fit: $(cat "$W/match.out")"
grep -q "allocation gpu -> accel-0000-03-00-0" "$W/match.out" || fail "example claim not allocated: $(cat "$W/match.out")"
jq '.devices[0].capacity["nodeatlas.io/memory"] = "8589934592"' "$W/discover.json" > "$W/discover-8gi.json"
if "${nodeatlas[@]}" match -f deploy/deviceclasses.yaml -f examples/accel/claim.yaml --discovered "$W/discover-8gi.json" \
  > "$W/match-8gi.out"; then
  fail "a GPU with 8 GiB matched the 16 GiB claim: $(cat "$W/match-8gi.out")"
fi
pass "examples/accel/claim.yaml gets the 64 GiB MI210 through nodeatlas-amd-gpu, and no GPU with 8 GiB"

echo "==> podman-accel e2e passed in $(( $(date +%s) - start )) s"
