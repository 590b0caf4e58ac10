#!/usr/bin/env bash
# End-to-end: two claims share one cpu device and one hugepage pool of this host (KEP-5075 consumable
# capacity), prepared by the agent's real Prepare path, and run in real podman containers.
#
# The host is discovered (`nodeatlas discover --sources cpu-numa`, after reserving a few 2 MiB pages),
# then io.nodeatlas.agent.testing.PrepareShares (agent's test jar) runs the real ClaimPreparer, checkpoint
# and claim CDI specs for two claims, as the scheduler would have allocated them: claim a takes 1 CPU and
# 4 MiB of hugepages, claim b 1 CPU and 8 MiB. Each claim's CDI devices are then injected into a podman
# container (podman 4.3.1 + runc, busybox rootfs, private scratch dirs, the host's CDI dirs never
# touched: same set-up as podman-cdi.sh), which shows:
#   - its CPUs: the cgroup's effective cpuset and Cpus_allowed_list, set by nodeatlas's createRuntime hook
#     (discovery-cpu-numa/src/main/c/nodeatlas-cpuset-hook.c) to exactly NODEATLAS_CPUS; the two claims' CPUs are disjoint;
#   - NODEATLAS_NUMA_NODE;
#   - its own hugetlbfs mount of the 2 MiB page size, limited to its share by size=.
# Where the host cannot run the hook's part (one CPU, no cpuset controller) the script says why and
# still checks env and mounts.
#
# Environment: NODEATLAS (default ./nodeatlas); the jars are built by ./mvnw -pl cli -am package.
# Needs root, podman, runc, busybox-static and jq. Idempotent; leaves nothing behind (nr_hugepages restored).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
read -r -a nodeatlas <<< "${NODEATLAS:-./nodeatlas}"
source .ci/e2e/lib/podman-sandbox.sh
note() { echo "  note: $*"; }
e2e_require podman runc jq busybox unshare java
jar=$repo/cli/target/nodeatlas.jar
tests=$(ls "$repo"/agent/target/agent-*-tests.jar 2>/dev/null | head -1)
hook=$repo/discovery-cpu-numa/target/hooks/nodeatlas-cpuset-hook
[[ -f $jar && -n $tests && -x $hook ]] || fail "build first: ./mvnw -B -pl cli -am package -DskipTests (needs $jar, the agent test jar and $hook)"

pages_before=$(cat /proc/sys/vm/nr_hugepages)
e2e_cleanup_extra() { echo "$pages_before" > /proc/sys/vm/nr_hugepages; }
e2e_sandbox shares sh env cat grep echo test head nproc df fallocate rm -- state hooks
# Runtimes run hooks on the host: the hook lies at a host path of ours, as systemd/install.sh and the DaemonSet put it.
install -m 0755 "$hook" "$W/hooks/cpuset-hook"


# --- 1. the host, with a few 2 MiB pages reserved ----------------------------------------------------------
echo "==> host"
cgfs=$(stat -fc %T /sys/fs/cgroup)
echo "  cgroup file system at /sys/fs/cgroup: $cgfs ($([[ $cgfs == cgroup2fs ]] && echo v2 || echo v1))"
echo 16 > /proc/sys/vm/nr_hugepages
"${nodeatlas[@]}" discover --sources cpu-numa -o json > "$W/report.json" || fail "discover failed"
cpu_dev=$(jq -r '[.devices[] | select(.attributes["nodeatlas.io/type"].string == "cpu")][0].name' "$W/report.json")
huge_dev=$(jq -r '[.devices[] | select(.attributes["nodeatlas.io/type"].string == "hugepages"
  and .attributes["nodeatlas.io/pageSizeBytes"].int == 2097152)][0].name' "$W/report.json")
[[ $cpu_dev != null ]] || fail "no cpu device discovered"
[[ $huge_dev != null ]] || fail "no 2 MiB hugepage device discovered after reserving 16 pages"
ncpu=$(jq -r --arg d "$cpu_dev" '.devices[] | select(.name == $d) | .capacity["nodeatlas.io/cpu"]' "$W/report.json")
echo "  devices: $cpu_dev ($ncpu CPUs), $huge_dev ($(jq -r --arg d "$huge_dev" '.devices[] | select(.name == $d) | .capacity["nodeatlas.io/memory"]' "$W/report.json") bytes)"
[[ $(jq -r --arg d "$cpu_dev" '.devices[] | select(.name == $d) | .allowMultipleAllocations' "$W/report.json") == true ]] \
  || fail "$cpu_dev does not allow multiple allocations"
per=1
[[ $ncpu -ge 4 ]] && per=2

# --- 2. Prepare: the agent's path, two claims sharing both devices ------------------------------------------
echo "==> prepare (agent)"
java -cp "$jar:$tests" io.nodeatlas.agent.testing.PrepareShares "$W/report.json" "$W/state" "$W/cdi" "$W/hooks/cpuset-hook" \
  "a:$cpu_dev=$per,$huge_dev=4Mi" "b:$cpu_dev=$per,$huge_dev=8Mi" > "$W/prepare.out" 2> "$W/prepare.err" \
  || fail "prepare failed: $(cat "$W/prepare.out" "$W/prepare.err")"
cat "$W/prepare.out"
"${nodeatlas[@]}" cdi validate "$W/cdi" > /dev/null || fail "the claim specs do not validate"
pass "both claims prepared, their CDI specs validate"
# Prepare is idempotent: the same answers again, from the checkpoint.
java -cp "$jar:$tests" io.nodeatlas.agent.testing.PrepareShares "$W/report.json" "$W/state" "$W/cdi" "$W/hooks/cpuset-hook" \
  "a:$cpu_dev=$per,$huge_dev=4Mi" "b:$cpu_dev=$per,$huge_dev=8Mi" 2>/dev/null | cmp -s - "$W/prepare.out" \
  || fail "a repeated Prepare answered differently"
pass "a repeated Prepare answers the same"

# --- 3. each claim in its own container ---------------------------------------------------------------------
declare -A cpus_of
hook_ok=1
for claim in a b; do
  read -r -a line < <(grep "^$claim ok " "$W/prepare.out")
  uid=${line[2]}
  spec=$W/cdi/nodeatlas.io-claim_$uid.json
  want_cpus=$(jq -r '[.devices[].containerEdits.env[]? | select(startswith("NODEATLAS_CPUS="))][0] | sub("NODEATLAS_CPUS="; "")' "$spec")
  want_node=$(jq -r '[.devices[].containerEdits.env[]? | select(startswith("NODEATLAS_NUMA_NODE="))][0] // "" | sub("NODEATLAS_NUMA_NODE="; "")' "$spec")
  want_size=$(jq -r '[.devices[].containerEdits.mounts[]? | select(.type == "hugetlbfs") | .options[] | select(startswith("size="))][0] | sub("size="; "")' "$spec")
  echo "==> claim $claim: NODEATLAS_CPUS=$want_cpus NODEATLAS_NUMA_NODE=$want_node hugetlbfs size=$want_size"
  echo "    hook: $(jq -c '[.devices[].containerEdits.hooks[]?][0] | {hookName, args}' "$spec")"
  devices=()
  for id in "${line[@]:3}"; do devices+=(--device "$id"); done
  set +e
  out=$(podman_in "$W/cdi" run --rm --network none "${devices[@]}" "$image" sh -c '
    echo "env NODEATLAS_CPUS=$NODEATLAS_CPUS"; echo "env NODEATLAS_NUMA_NODE=$NODEATLAS_NUMA_NODE"
    echo "cpuset $(cat /sys/fs/cgroup/cpuset.cpus.effective 2>/dev/null || cat /sys/fs/cgroup/cpuset/cpuset.effective_cpus 2>/dev/null || echo unknown)"
    grep Cpus_allowed_list /proc/self/status; echo "nproc $(nproc)"
    grep hugetlbfs /proc/mounts
    fallocate -l "$1" /dev/hugepages-2Mi/share && echo "fallocate share ok"; rm -f /dev/hugepages-2Mi/share
    fallocate -l "$2" /dev/hugepages-2Mi/more 2>/dev/null && echo "fallocate beyond ok" || echo "fallocate beyond refused"
    rm -f /dev/hugepages-2Mi/more' sh "$want_size" "$((want_size + 2097152))" 2>&1)
  rc=$?
  set -e
  echo "$out" | sed 's/^/    | /'
  if [[ $rc != 0 ]]; then
    # Where the hook cannot restrict the cgroup here, say why and check the rest without it.
    grep -q 'nodeatlas-cpuset-hook' <<< "$out" || fail "podman could not run claim $claim: $out"
    note "the runtime ran nodeatlas's hook and it refused on this host: $(grep -o 'nodeatlas-cpuset-hook:.*' <<< "$out" | head -1)"
    hook_ok=0
    jq '(.devices[].containerEdits.hooks) |= []' "$spec" > "$spec.tmp" && mv "$spec.tmp" "$spec"
    out=$(podman_in "$W/cdi" run --rm --network none "${devices[@]}" "$image" sh -c '
      echo "env NODEATLAS_CPUS=$NODEATLAS_CPUS"; echo "env NODEATLAS_NUMA_NODE=$NODEATLAS_NUMA_NODE"; grep hugetlbfs /proc/mounts' 2>&1) \
      || fail "podman could not run claim $claim without the hook: $out"
    echo "$out" | sed 's/^/    | /'
  fi
  grep -qx "env NODEATLAS_CPUS=$want_cpus" <<< "$out" || fail "claim $claim: NODEATLAS_CPUS is not $want_cpus"
  [[ -z $want_node ]] || grep -qx "env NODEATLAS_NUMA_NODE=$want_node" <<< "$out" || fail "claim $claim: NODEATLAS_NUMA_NODE is not $want_node"
  pass "claim $claim: the container's env names its CPUs ($want_cpus) and NUMA node ($want_node)"
  mount_line=$(grep ' /dev/hugepages-2Mi hugetlbfs ' <<< "$out") || fail "claim $claim: no hugetlbfs mount at /dev/hugepages-2Mi"
  grep -q "pagesize=2M" <<< "$mount_line" || fail "claim $claim: the mount is not of 2 MiB pages: $mount_line"
  # fs/hugetlbfs/inode.c shows size= in bytes (older kernels: with a K/M suffix).
  grep -Eq "size=($want_size|$((want_size / 1048576))M)(,| )" <<< "$mount_line" || fail "claim $claim: the mount is not limited to $want_size bytes: $mount_line"
  pass "claim $claim: its own hugetlbfs mount, 2 MiB pages, limited to its share ($want_size bytes)"
  if [[ $hook_ok == 1 ]]; then
    grep -qx "fallocate share ok" <<< "$out" || fail "claim $claim: its $want_size bytes of huge pages could not be allocated"
    grep -qx "fallocate beyond refused" <<< "$out" || fail "claim $claim: one page more than its share could be allocated"
    pass "claim $claim: its share of huge pages can be allocated, one page more cannot"
  fi
  if [[ $hook_ok == 1 ]]; then
    grep -qx "Cpus_allowed_list:[[:space:]]*$want_cpus" <<< "$out" || fail "claim $claim: the container may run on other CPUs than $want_cpus"
    grep -qx "cpuset $want_cpus" <<< "$out" || fail "claim $claim: the cgroup's effective cpuset is not $want_cpus"
    pass "claim $claim: the hook restricted the container's cgroup to CPUs $want_cpus"
  fi
  cpus_of[$claim]=$want_cpus
done
[[ ${cpus_of[a]} != "${cpus_of[b]}" ]] || fail "both claims got CPUs ${cpus_of[a]}"
pass "the two claims' CPUs are disjoint: a=${cpus_of[a]} b=${cpus_of[b]}"
echo "PASS"
