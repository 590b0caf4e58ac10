#!/usr/bin/env bash
# End-to-end: device metadata (KEP-5304) read inside real containers.
#
# io.nodeatlas.agent.testing.PrepareMetadata (agent's test jar) runs the agent's real Prepare path
# (ClaimPreparer, checkpoint, claim CDI specs, DeviceMetadataFiles) for two claims: "direct", named by the
# pod (request gpus on gpu-0, request net on nic-eth1 with interface eth1), and "pod-a-accel-x7k2q", made
# from a template (the pod's name for it: accel; request gpus, subrequest big, on gpu-1). Each claim's CDI
# ids are then injected into a podman container (podman 4.3.1 + runc, busybox rootfs, private scratch
# dirs, the host's CDI dirs never touched: the set-up of podman-cdi.sh), which shows:
#   - the file at /var/run/kubernetes.io/dra-device-attributes/{resourceclaims/<claim>|resourceclaimtemplates/<podClaimName>}/<request>/nodeatlas.io-metadata.json,
#     the path k8s.io/dynamic-resource-allocation api/metadata defines, read-only;
#   - its JSON, checked with jq: a stream of metadata.resource.k8s.io DeviceMetadata objects, the first
#     one v1alpha1, with the claim, the request and each device's attributes, and the NIC's networkData;
#   - a container given only one request's devices sees only that request's file.
# The metadata mounts are CDI devices of the claim's own spec (one spec per claim). Then Unprepare removes
# the files and the spec, and podman no longer resolves the id.
#
# Environment: the jars are built by ./mvnw -pl cli -am package -DskipTests; NODEATLAS (default ./nodeatlas).
# Needs root, podman, runc, busybox-static, jq and java. Idempotent; leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
read -r -a nodeatlas <<< "${NODEATLAS:-./nodeatlas}"
source .ci/e2e/lib/podman-sandbox.sh
e2e_require podman runc jq busybox unshare java
jar=$repo/cli/target/nodeatlas.jar
tests=$(ls "$repo"/agent/target/agent-*-tests.jar 2>/dev/null | head -1)
[[ -f $jar && -n $tests ]] || fail "build first: ./mvnw -B -pl cli -am package -DskipTests (needs $jar and the agent test jar)"
start=$(date +%s)
e2e_sandbox metadata sh cat echo test grep ls -- state
dir=/var/run/kubernetes.io/dra-device-attributes
helper=(java -cp "$jar:$tests" io.nodeatlas.agent.testing.PrepareMetadata)

# --- 1. Prepare -----------------------------------------------------------------------------------------
echo "==> prepare (agent)"
"${helper[@]}" prepare "$W/state" "$W/cdi" > "$W/prepare.out" 2> "$W/prepare.err" \
  || fail "prepare failed: $(cat "$W/prepare.out" "$W/prepare.err")"
cat "$W/prepare.out"
"${nodeatlas[@]}" cdi validate "$W/cdi" > "$W/validate.out" || fail "the specs do not validate: $(cat "$W/validate.out")"
n=$(ls "$W/cdi" | grep -c '\.json$') || true
[[ $n == 2 ]] || fail "expected one CDI spec per claim, found $n: $(ls "$W/cdi")"
pass "both claims prepared; one spec per claim, with its metadata mounts, and both validate"

read -r -a direct < <(grep '^direct ok ' "$W/prepare.out")
read -r -a generated < <(grep '^pod-a-accel-x7k2q ok ' "$W/prepare.out")
duid=${direct[2]}; guid=${generated[2]}
for id in "nodeatlas.io/claim=$duid-metadata_gpus" "nodeatlas.io/claim=$duid-metadata_net"; do
  [[ " ${direct[*]:3} " == *" $id "* ]] || fail "claim direct's answer lacks $id: ${direct[*]}"
done
[[ " ${generated[*]:3} " == *" nodeatlas.io/claim=$guid-metadata_gpus "* ]] || fail "the generated claim's answer lacks its metadata id"
pass "each request's metadata id is in the Prepare answer"

run_ids() { # COMMAND CDI-ID...
  local cmd=$1 args=() id; shift
  for id in "$@"; do args+=(--device "$id"); done
  podman_in "$W/cdi" run --rm --network none "${args[@]}" "$image" sh -c "$cmd" 2> >(grep -v oom_score_adj >&2)
}

# --- 2. the claim the pod names ------------------------------------------------------------------------------
echo "==> claim direct"
ids=("${direct[@]:3}")
gpus=$dir/resourceclaims/direct/gpus/nodeatlas.io-metadata.json
net=$dir/resourceclaims/direct/net/nodeatlas.io-metadata.json
run_ids "cat $gpus" "${ids[@]}" > "$W/direct-gpus.json" || fail "no $gpus in the container"
run_ids "cat $net" "${ids[@]}" > "$W/direct-net.json" || fail "no $net in the container"
jq -s -e --arg uid "$duid" '
  (.[0].apiVersion == "metadata.resource.k8s.io/v1alpha1") and all(.[]; .kind == "DeviceMetadata" and (.apiVersion | startswith("metadata.resource.k8s.io/")))
  and .[0].metadata.name == "direct" and .[0].metadata.namespace == "e2e" and .[0].metadata.uid == $uid
  and (.[0] | has("podClaimName") | not)
  and (.[0].requests | length) == 1 and .[0].requests[0].name == "gpus"
  and .[0].requests[0].devices[0] == {driver: "nodeatlas.io", pool: "node-a", name: "gpu-0", attributes: {
        "nodeatlas.io/driverVersion": {version: "580.65.6"}, "nodeatlas.io/type": {string: "gpu"},
        "nodeatlas.io/uuid": {string: "GPU-00000000-aaaa-bbbb-cccc"}, "resource.kubernetes.io/numaNode": {int: 0},
        "resource.kubernetes.io/pciBusID": {string: "0000:10:00.0"}}}' "$W/direct-gpus.json" > /dev/null \
  || fail "the gpus file is not the expected metadata stream: $(cat "$W/direct-gpus.json")"
pass "$gpus: a metadata.resource.k8s.io/v1alpha1 DeviceMetadata stream with gpu-0's attributes"
jq -s -e '.[0].requests[0].name == "net" and .[0].requests[0].devices[0].name == "nic-eth1"
  and .[0].requests[0].devices[0].networkData == {interfaceName: "eth1", hardwareAddress: "0c:42:a1:00:00:01"}' \
  "$W/direct-net.json" > /dev/null || fail "the net file lacks the NIC's networkData: $(cat "$W/direct-net.json")"
pass "$net: the NIC's networkData (interfaceName eth1, hardwareAddress)"
host_file=$(jq -r --arg n "$duid-metadata_gpus" '.devices[] | select(.name == $n) | .containerEdits.mounts[0].hostPath' \
  "$W/cdi/nodeatlas.io-claim_$duid.json")
cmp -s "$host_file" "$W/direct-gpus.json" || fail "the container's file differs from the host's $host_file"
[[ $host_file == "$W/state/device-metadata/$duid/resourceclaims/direct/gpus/nodeatlas.io-metadata.json" ]] \
  || fail "the host file is not under the state directory: $host_file"
pass "the container shows the host file $host_file"
out=$(run_ids "grep ' $gpus ' /proc/mounts; if echo x > $gpus; then echo writable; else echo refused; fi" "${ids[@]}" 2>/dev/null) || true
grep -q " $gpus [^ ]* ro[, ]" <<< "$out" || fail "$gpus is not mounted read-only: $out"
grep -qx refused <<< "$out" || fail "$gpus could be written in the container: $out"
pass "the file is mounted read-only and cannot be written"
only_net=()
for id in "${ids[@]}"; do [[ $id == *-gpu-0 || $id == *_gpus ]] || only_net+=("$id"); done
out=$(run_ids "test -e $net && echo net; test -e $gpus && echo gpus; true" "${only_net[@]}")
[[ $out == net ]] || fail "a container of request net alone sees: $out"
pass "a container given only request net's devices sees only that request's file"

# --- 3. the claim made from a template ------------------------------------------------------------------------
echo "==> claim pod-a-accel-x7k2q (template, pod claim name accel)"
ids=("${generated[@]:3}")
file=$dir/resourceclaimtemplates/accel/gpus/nodeatlas.io-metadata.json
run_ids "cat $file" "${ids[@]}" > "$W/generated.json" || fail "no $file in the container"
jq -s -e --arg uid "$guid" '.[0].podClaimName == "accel" and .[0].metadata.name == "pod-a-accel-x7k2q"
  and .[0].metadata.uid == $uid and .[0].requests[0].name == "gpus/big" and .[0].requests[0].devices[0].name == "gpu-1"
  and .[0].requests[0].devices[0].attributes["nodeatlas.io/uuid"].string == "GPU-00000001-aaaa-bbbb-cccc"' \
  "$W/generated.json" > /dev/null || fail "the template claim's file is not as expected: $(cat "$W/generated.json")"
pass "$file: podClaimName accel, request gpus/big, gpu-1"

# --- 4. Unprepare ----------------------------------------------------------------------------------------------
echo "==> unprepare direct"
"${helper[@]}" unprepare "$W/state" "$W/cdi" direct > "$W/unprepare.out" 2>&1 || fail "unprepare failed: $(cat "$W/unprepare.out")"
[[ ! -e $W/cdi/nodeatlas.io-claim_$duid.json && ! -e $W/state/device-metadata/$duid ]] \
  || fail "unprepare left the spec or the metadata files of claim direct"
ids=("nodeatlas.io/claim=$duid-metadata_gpus")
if out=$(run_ids true "${ids[@]}" 2>&1); then fail "podman still resolved the metadata id of an unprepared claim"; fi
grep -q "unresolvable CDI devices nodeatlas.io/claim=$duid-metadata_gpus" <<< "$out" || fail "unexpected podman error: $out"
[[ -e $W/cdi/nodeatlas.io-claim_$guid.json ]] || fail "unprepare of direct removed the other claim's spec"
pass "unprepare removed claim direct's files and spec; its id no longer resolves; the other claim keeps its own"

echo "==> podman-metadata e2e passed in $(( $(date +%s) - start )) s"
