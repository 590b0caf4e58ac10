#!/usr/bin/env bash
# End-to-end: `nodeatlas doctor` on this machine, as an operator runs it, with podman and our specs:
#   - a claim prepared by the agent's own code (its checkpoint, its CDI spec naming our OCI hook), the
#     specs where podman reads them (in a private mount namespace, as the podman checks do): doctor passes
#     (exit 0), says podman reads our directory, and the claim's device reaches a real container;
#   - a vendor's spec naming a device node this host lacks: doctor fails (exit 1) and names it, with the fix;
#   - the claim's spec deleted behind the agent's back: doctor names the claim and how to get it back.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
source .ci/e2e/lib/podman-sandbox.sh
e2e_require podman runc jq busybox unshare java
jar=$repo/cli/target/nodeatlas.jar
tests=$(ls "$repo"/agent/target/agent-*-tests.jar 2>/dev/null | head -1)
hook=$repo/discovery-cpu-numa/target/hooks/nodeatlas-cpuset-hook
[[ -f $jar && -n $tests && -x $hook ]] || fail "build first: ./mvnw -B -pl cli -am package -DskipTests (needs $jar, the agent test jar and $hook)"

e2e_sandbox doctor sh env echo -- state hooks
install -m 0755 "$hook" "$W/hooks/cpuset-hook"
./nodeatlas discover --sources cpu-numa -o json > "$W/report.json" || fail "discover failed"
cpu_dev=$(jq -r '[.devices[] | select(.attributes["nodeatlas.io/type"].string == "cpu")][0].name' "$W/report.json")
[[ $cpu_dev != null ]] || fail "no cpu device discovered"
java -cp "$jar:$tests" io.nodeatlas.agent.testing.PrepareShares "$W/report.json" "$W/state" "$W/cdi" "$W/hooks/cpuset-hook" \
  "a:$cpu_dev=1" > "$W/prepare.out" 2> "$W/prepare.err" || fail "prepare failed: $(cat "$W/prepare.out" "$W/prepare.err")"
read -r -a line < <(grep "^a ok " "$W/prepare.out")
uid=${line[2]}

# doctor sees what podman sees: our spec directory at /var/run/cdi, an empty /etc/cdi of the test's own.
doctor_in() {
  unshare -m --propagation private -- sh -c 'mount --bind "$1" /etc/cdi && mount --bind "$2" /var/run/cdi && shift 2 && exec "$@"' \
    sh "$W/etc-cdi" "$W/cdi" ./nodeatlas doctor --sources cpu-numa --state-dir "$W/state" --hook-path "$W/hooks/cpuset-hook" "$@"
}
finding() { jq -r --arg c "$2" '[.findings[] | select(.check == $c)][0] | "\(.result) \(.saw) | \(.fix // "")"' "$1"; }

echo "==> doctor on this machine, one prepared claim"
set +e
doctor_in > "$W/table.txt" 2>&1
doctor_in -o json > "$W/ok.json" 2> "$W/ok.err"
rc=$?
set -e
sed 's/^/    | /' "$W/table.txt"
[[ $rc == 0 ]] || fail "doctor exits $rc on a working node: $(jq -c '[.findings[] | select(.result == "fail")]' "$W/ok.json") $(cat "$W/ok.err")"
head -1 "$W/table.txt" | grep -q '^nodeatlas doctor: ' || fail "the table does not start with the verdict"
[[ $(finding "$W/ok.json" runtime.podman) == "ok "*"reads /etc/cdi, /var/run/cdi"* ]] || fail "podman: $(finding "$W/ok.json" runtime.podman)"
[[ $(finding "$W/ok.json" agent.checkpoint) == "ok "*"1 prepared claim, each with its spec"* ]] || fail "checkpoint: $(finding "$W/ok.json" agent.checkpoint)"
[[ $(finding "$W/ok.json" cpu.hook) == "ok "* ]] || fail "hook: $(finding "$W/ok.json" cpu.hook)"
pass "doctor passes (exit 0): podman reads our specs, the checkpoint and the claim's spec agree, the hook is in place"

# The prepared device reaches a real container (the hook part is the shares check's; here the env suffices).
jq '(.devices[].containerEdits.hooks) |= []' "$W/cdi/nodeatlas.io-claim_$uid.json" > "$W/nohook.json"
mkdir -p "$W/cdi-nohook" && cp "$W/nohook.json" "$W/cdi-nohook/nodeatlas.io-claim_$uid.json"
out=$(podman_in "$W/cdi-nohook" run --rm --network none --device "${line[3]}" "$image" sh -c 'echo "NODEATLAS_CPUS=$NODEATLAS_CPUS"' 2>&1) \
  || fail "podman could not run the claim's device: $out"
grep -q '^NODEATLAS_CPUS=[0-9]' <<< "$out" || fail "the container did not get the claim's edits: $out"
pass "the claim's device reaches a podman container ($out)"

echo "==> a vendor's spec naming a device this host lacks"
cat > "$W/etc-cdi/vendor.yaml" <<'SPEC'
cdiVersion: 0.6.0
kind: example.com/fpga
devices:
- name: f0
  containerEdits:
    deviceNodes:
    - path: /dev/nodeatlas-e2e-no-such-fpga0
SPEC
set +e
doctor_in -o json > "$W/bad.json" 2>/dev/null
rc=$?
set -e
[[ $rc == 1 ]] || fail "doctor exits $rc with a spec naming a missing device, want 1"
got=$(finding "$W/bad.json" cdi.devices)
[[ $got == "fail "*"/dev/nodeatlas-e2e-no-such-fpga0 does not exist"*"| load the device's driver"* ]] || fail "cdi.devices: $got"
pass "doctor fails (exit 1) and names the missing node: ${got#fail }"
rm "$W/etc-cdi/vendor.yaml"

echo "==> the claim's spec deleted behind the agent's back"
rm "$W/cdi/nodeatlas.io-claim_$uid.json"
set +e
doctor_in -o json > "$W/lost.json" 2>/dev/null
rc=$?
set -e
got=$(finding "$W/lost.json" agent.specs)
[[ $rc == 1 && $got == "fail 1 prepared claim without a CDI spec"*"e2e/a ($uid)"* ]] || fail "exit $rc, agent.specs: $got"
pass "doctor names the claim whose spec is gone: ${got#fail }"
echo "PASS"
