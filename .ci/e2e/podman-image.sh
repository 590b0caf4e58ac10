#!/usr/bin/env bash
# End-to-end: the agent image, built by deploy/build-image.sh and run by podman the way
# deploy/daemonset.yaml runs it: the manifest is read here (its env, volume mounts, security context and
# memory limit become podman flags), so a mount or variable the manifest lacks fails here too.
#   1. build and load the image; its tag is the jar's version; its size is printed; the entry point's
#      JVM maps its CDS archive and takes half the manifest's memory limit as heap;
#   2. the init container's command copies the static hook to the host directory (twice: a restart);
#   3. `discover` and `slices` in the container find what the jar finds on this host (a fixture host
#      root mounted as the DaemonSet mounts /sys and /proc, and a driver root with the tests' fake
#      NVML, loaded through JNA);
#   4. `run` with in-cluster credentials against a fake API server (HTTPS, an EC certificate, a bearer
#      token: .ci/e2e/fixtures/FakeApiServer.java) publishes the devices `slices` showed, /healthz
#      answers, every log line is JSON, and SIGTERM stops it cleanly;
#   5. `doctor`, when the image has that command.
# No command may print "Picked up JAVA_TOOL_OPTIONS": the entry point passes the JVM flags.
# The containers share this host's network (the fake server and the agent bind 127.0.0.1 only).
# Needs root, podman, runc, busybox-static, jq, mmdebstrap, zip, gcc, a JDK with jmods, and the build
# (./mvnw -B verify: the jar and discovery-gpu's fake NVML). Idempotent; leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
fixtures=$repo/.ci/e2e/fixtures
jar=$repo/cli/target/nodeatlas.jar
start=$(date +%s)
node=e2e-node

source .ci/e2e/lib/podman-sandbox.sh
e2e_require podman runc jq busybox unshare mmdebstrap zip gcc keytool
[[ -f $jar ]] || fail "$jar is missing: ./mvnw -B -pl cli -am package first"
fake_nvml=$repo/discovery-gpu/target/native/libnvidia-ml.so.1
[[ -f $fake_nvml ]] || fail "$fake_nvml is missing: run ./mvnw verify (or test-compile in discovery-gpu) first"
api_pid=
e2e_cleanup_extra() { if [[ -n $api_pid ]]; then kill "$api_pid" 2>/dev/null; fi; }
e2e_sandbox image sh -- hooks api sa kubelet/plugins_registry kubelet/plugins/nodeatlas.io state dev driver-root

no_noise() { # FILE WHAT: the JVM's "Picked up ..." line, or a Java stack trace
  if grep -E 'Picked up (JAVA_TOOL_OPTIONS|JDK_JAVA_OPTIONS|_JAVA_OPTIONS)|^\s+at [a-z]+\.' "$1" >&2; then
    fail "$2 printed the lines above on stderr"
  fi
}

# --- 1. the image -----------------------------------------------------------------------------------
echo "==> build"
t0=$(date +%s)
deploy/build-image.sh "$W/image.oci.tar" | tee "$W/build.out"
read -r ref digest _ < <(tail -1 "$W/build.out")
echo "  built in $(( $(date +%s) - t0 )) s"
"${P[@]}" load -q -i "$W/image.oci.tar" >/dev/null
"${P[@]}" image exists "$ref" || fail "podman load did not name the image $ref"
version=$(java -jar "$jar" --version | awk '{print $2}')
[[ $ref == ghcr.io/nodeatlas/nodeatlas:$version ]] || fail "image $ref, but the jar is $version"
in_image=$("${P[@]}" run --rm --network none "$ref" --version 2>"$W/version.err")
[[ $in_image == "nodeatlas $version" ]] || fail "the image's nodeatlas --version says '$in_image'"
no_noise "$W/version.err" "--version"
pass "$ref ($digest) runs nodeatlas $version"
size=$("${P[@]}" image inspect --format '{{.Size}}' "$ref")
archive=$(stat -c %s "$W/image.oci.tar")
pass "size: $(( size / 1048576 )) MiB unpacked, $(( archive / 1048576 )) MiB to pull (gzip layers)"
# A bound that catches a whole JDK, a second copy of the jar or a full Debian slipping in.
(( size < 160 * 1048576 )) || fail "the image grew to $(( size / 1048576 )) MiB"
"${P[@]}" image inspect --format '{{json .Config}}' "$ref" > "$W/config.json"
if jq -e '.Env // [] | map(select(startswith("JAVA_TOOL_OPTIONS=") or startswith("JDK_JAVA_OPTIONS="))) | length > 0' \
  "$W/config.json" >/dev/null; then
  fail "the image sets JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS (the JVM prints them on every start)"
fi
eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
for flag in $NODEATLAS_JAVA_OPTS; do
  [[ $flag == -XX:MaxRAM=* ]] && continue
  jq -e --arg f "$flag" '.Entrypoint | index($f) != null' "$W/config.json" >/dev/null \
    || fail "the entry point lacks $flag of systemd/nodeatlas.env"
done
pass "the entry point passes the JVM flags of systemd/nodeatlas.env; no JAVA_TOOL_OPTIONS"
"${P[@]}" run --rm --network none --entrypoint "$(jq -r '.Entrypoint[0]' "$W/config.json")" "$ref" -Xshare:on -version \
  >/dev/null 2>"$W/cds.err" || fail "the runtime's class-data archive does not map: $(cat "$W/cds.err")"
pass "the jlinked runtime maps its class-data archive (-Xshare:on)"
# Without -XX:MaxRAM the JVM sizes its heap from the container's limit: half of the DaemonSet's.
limit=$(java -cp "$jar" "$fixtures/YamlToJson.java" < deploy/daemonset.yaml |
  jq -r '.[] | select(.kind == "DaemonSet") | .spec.template.spec.containers[] | select(.name == "agent") | .resources.limits.memory')
[[ $limit =~ ^([0-9]+)Mi$ ]] || fail "the agent's memory limit is not in Mi: $limit"
heap=$("${P[@]}" run --rm --network none --memory="${BASH_REMATCH[1]}m" \
  --entrypoint "$(jq -c '.Entrypoint[:-2] + ["-XX:+PrintFlagsFinal", "-version"]' "$W/config.json")" "$ref" 2>/dev/null |
  awk '$2 == "MaxHeapSize" {print $4}')
(( heap == BASH_REMATCH[1] * 1048576 / 2 )) || fail "MaxHeapSize under a $limit limit is $heap, not half of it"
pass "under the DaemonSet's $limit limit the entry point's JVM takes a $(( heap / 1048576 )) MiB heap"

# --- the DaemonSet, as podman flags -------------------------------------------------------------------
java -cp "$jar" "$fixtures/YamlToJson.java" < deploy/daemonset.yaml > "$W/daemonset.json"
pod=$(jq -c '.[] | select(.kind == "DaemonSet") | .spec.template.spec' "$W/daemonset.json")
# Each volume of the manifest, here: the host's directories are this script's, /sys and /proc a fixture's.
declare -A local_dir=(
  [plugins-registry]=$W/kubelet/plugins_registry [plugins]=$W/kubelet/plugins/nodeatlas.io [cdi]=$W/cdi
  [state]=$W/state [host-sys]=$fixtures/hostroot/sys [host-proc]=$fixtures/hostroot/proc [dev]=$W/dev
  [driver-root]=$W/driver-root [hooks]=$W/hooks
)
podman_flags() { # CONTAINER-JSON -> one podman flag a line
  local c=$1 name mount ro
  jq -r '.volumeMounts // [] | .[] | "\(.name) \(.mountPath) \(.readOnly // false)"' <<<"$c" |
    while read -r name mount ro; do
      if jq -e --arg n "$name" '.volumes[] | select(.name == $n) | .emptyDir' <<<"$pod" >/dev/null; then
        echo "--tmpfs=$mount:rw,nosuid,nodev,size=16m"
      elif [[ -n ${local_dir[$name]:-} ]]; then
        echo "--volume=${local_dir[$name]}:$mount:$([[ $ro == true ]] && echo ro || echo rw)"
      else
        fail "the manifest mounts volume $name, which this script does not know: add it to local_dir"
      fi
    done
  jq -r '.env // [] | .[] | select(.value != null) | "--env=\(.name)=\(.value)"' <<<"$c"
  jq -r '.securityContext | (if .readOnlyRootFilesystem then "--read-only\n--read-only-tmpfs=false" else empty end),
    (if .allowPrivilegeEscalation == false then "--security-opt=no-new-privileges" else empty end),
    (if .runAsUser != null then "--user=\(.runAsUser)" else empty end),
    (.capabilities.drop // [] | .[] | "--cap-drop=\(.)"), (.capabilities.add // [] | .[] | "--cap-add=\(.)")' <<<"$c"
  jq -r '.resources.limits.memory // empty | sub("Mi$"; "m") | "--memory=\(.)"' <<<"$c"
}
agent=$(jq -c '.containers[] | select(.name == "agent")' <<<"$pod")
init=$(jq -c '.initContainers[] | select(.name == "install-hook")' <<<"$pod")
mapfile -t agent_flags < <(podman_flags "$agent")
mapfile -t init_flags < <(podman_flags "$init")
# The driver root holds the tests' fake NVML, loaded through JNA as the real one is: the image's JNA
# native library and its libc must work for the gpu source to find the GPU.
mkdir -p "$W/driver-root/usr/lib/x86_64-linux-gnu" "$W/driver-root/etc"
cp "$fake_nvml" "$W/driver-root/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
printf '%s\n' driver.version=550.54.15 cuda.driver.version=12040 device.count=1 'device.0.name=NVIDIA H100 80GB HBM3' \
  device.0.uuid=GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11 device.0.minor=0 device.0.pci.busid=00000000:18:00.0 \
  device.0.memory.total=85520809984 >"$W/driver-root/etc/fake-nvml.conf"
# The downward API's fields, and where the fake NVML reads its configuration.
downward=(--env=NODE_NAME=$node --env=NODEATLAS_ROLLING_UPDATE_UID=0e2e0000-0000-4000-8000-000000000001 --env=NODEATLAS_NODE_IP=127.0.0.1
  --env=NODEATLAS_HTTP_ADDRESS=127.0.0.1 --env=FAKE_NVML_CONFIG=/driver-root/etc/fake-nvml.conf)

# --- 2. the init step ---------------------------------------------------------------------------------
echo "==> init container: $(jq -c .command <<<"$init")"
for round in 1 2; do
  "${P[@]}" run --rm --network none "${init_flags[@]}" --entrypoint "$(jq -c .command <<<"$init")" "$ref" \
    2>"$W/init.err" || fail "the init step failed (round $round): $(cat "$W/init.err")"
done
[[ -x $W/hooks/cpuset-hook && ! -e $W/hooks/.cpuset-hook.new ]] || fail "no executable hook in the host directory: $(ls -la "$W/hooks")"
[[ $(stat -c %a "$W/hooks/cpuset-hook") == 755 ]] || fail "the hook's mode is $(stat -c %a "$W/hooks/cpuset-hook")"
# Runtimes run it on the host, whatever the host has: in a container of busybox alone (no libc, no
# loader) it must still run, and answer an empty state as the hook does.
out=$("${P[@]}" run --rm --network none -v "$W/hooks/cpuset-hook:/hook:ro" "$image" /hook </dev/null 2>&1 || true)
[[ $out == *"nodeatlas-cpuset-hook: "*"not a JSON object"* ]] || fail "the copied hook does not run on its own: $out"
pass "the init step copies the static hook to the host's hook directory (twice); it runs without a libc"

# --- 3. discover and slices ---------------------------------------------------------------------------
echo "==> discover and slices in the container"
in_pod() { "${P[@]}" run --rm --network none "${agent_flags[@]}" "${downward[@]}" "$ref" "$@"; }
in_pod discover -o json >"$W/discover.json" 2>"$W/discover.err" || fail "discover failed: $(cat "$W/discover.err")"
no_noise "$W/discover.err" discover
NODEATLAS_SYSFS_ROOT=$fixtures/hostroot/sys NODEATLAS_PROCFS_ROOT=$fixtures/hostroot/proc NODEATLAS_DEV_ROOT=$W/dev \
  NVIDIA_DRIVER_ROOT=/run/nvidia/driver CONTAINER_DRIVER_ROOT=$W/driver-root FAKE_NVML_CONFIG=$W/driver-root/etc/fake-nvml.conf \
  java -jar "$jar" discover -o json >"$W/discover-jar.json" 2>/dev/null
names=$(jq -c '[.devices[].name] | sort' "$W/discover.json")
[[ $names == "$(jq -c '[.devices[].name] | sort' "$W/discover-jar.json")" ]] \
  || fail "the image found $names, the jar on this host $(jq -c '[.devices[].name] | sort' "$W/discover-jar.json")"
jq -e '[.devices[].name] | length >= 4' "$W/discover.json" >/dev/null || fail "the fixture's devices are missing: $names"
jq -e '[.devices[] | select(.attributes["nodeatlas.io/type"].string == "gpu")] | length == 1' "$W/discover.json" >/dev/null \
  || fail "no GPU from the fake NVML: JNA or the driver root do not work in the image: $(cat "$W/discover.err")"
pass "discover: $names, as the jar finds them"
# --node-name given: slices does not read run's NODE_NAME yet (the host name otherwise).
in_pod slices --node-name "$node" -o json >"$W/slices.json" 2>"$W/slices.err" || fail "slices failed: $(cat "$W/slices.err")"
no_noise "$W/slices.err" slices
jq -e --arg n "$node" '[.items[].spec.nodeName] | unique == [$n]' "$W/slices.json" >/dev/null \
  || fail "slices are not for node $node: $(jq -c '[.items[].spec.nodeName]' "$W/slices.json")"
[[ $(jq -c '[.items[].spec.devices[].name] | sort' "$W/slices.json") == "$names" ]] || fail "slices show other devices"
pass "slices: $(jq '.items | length' "$W/slices.json") slice(s) for $node"

# --- 4. run against a fake API server ------------------------------------------------------------------
echo "==> run with in-cluster credentials against the fake API server"
keytool -genkeypair -keystore "$W/api/server.p12" -storetype PKCS12 -storepass e2e-only -alias api -keyalg EC \
  -dname CN=kube-apiserver -ext san=ip:127.0.0.1 -validity 2 >/dev/null 2>&1
keytool -exportcert -rfc -keystore "$W/api/server.p12" -storepass e2e-only -alias api >"$W/sa/ca.crt" 2>/dev/null
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/api/token"
cp "$W/api/token" "$W/sa/token"
echo nodeatlas >"$W/sa/namespace"
java -cp "$jar" "$fixtures/FakeApiServer.java" "$W/api" "$node" >"$W/api/log" 2>&1 &
api_pid=$!
for _ in $(seq 120); do [[ -s $W/api/port ]] && break; sleep 0.5; done
[[ -s $W/api/port ]] || fail "the fake API server did not start: $(cat "$W/api/log")"
http_get() { # PORT PATH -> the status code (bash's /dev/tcp: busybox's static wget is not reliable here)
  local line
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
  read -r -t 5 _ line _ <&3 || line=
  exec 3<&-
  echo "$line"
}
free_port() { local p; while :; do p=$(( 20000 + RANDOM % 40000 )); (: <"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done; }
http_port=$(free_port)
"${P[@]}" run -d --name agent --network host "${agent_flags[@]}" "${downward[@]}" \
  --env=KUBERNETES_SERVICE_HOST=127.0.0.1 --env=KUBERNETES_SERVICE_PORT="$(cat "$W/api/port")" \
  --env=NODEATLAS_HTTP_PORT="$http_port" --env=NODEATLAS_HEALTHCHECK_PORT="$(free_port)" \
  --volume="$W/sa:/var/run/secrets/kubernetes.io/serviceaccount:ro" \
  "$ref" "$(jq -r '.args[0]' <<<"$agent")" >/dev/null
published=false healthy=false
for _ in $(seq 240); do
  if [[ $published == false && -s $W/api/slices.json ]] && jq -e 'length > 0' "$W/api/slices.json" >/dev/null; then published=true; fi
  if [[ $healthy == false && $(http_get "$http_port" /healthz 2>/dev/null) == 200 ]]; then healthy=true; fi
  [[ $published == true && $healthy == true ]] && break
  [[ $("${P[@]}" inspect --format '{{.State.Running}}' agent) == true ]] || break
  sleep 0.5
done
"${P[@]}" logs agent >"$W/agent.log" 2>&1 || true
if [[ $published != true || $healthy != true ]]; then
  tail -30 "$W/agent.log" >&2; tail -20 "$W/api/log" >&2
  fail "run: published=$published healthy=$healthy within 120 s"
fi
got=$(jq -c '[.[].spec.devices[]] | sort_by(.name)' "$W/api/slices.json")
want=$(jq -c '[.items[].spec.devices[]] | sort_by(.name)' "$W/slices.json")
[[ $got == "$want" ]] || fail "run published other devices than slices showed: $(jq -c '[.[] | .name]' <<<"$got")"
jq -e --arg n "$node" 'all(.[]; .spec.nodeName == $n and .metadata.ownerReferences[0].kind == "Node")' \
  "$W/api/slices.json" >/dev/null || fail "the published slices do not belong to Node $node"
pass "run published $(jq -c '[.[].spec.devices[].name]' "$W/api/slices.json") as slices showed; /healthz answers"
"${P[@]}" stop -t 30 agent >/dev/null
code=$("${P[@]}" inspect --format '{{.State.ExitCode}}' agent)
"${P[@]}" logs agent >"$W/agent.log" 2>&1 || true
[[ $code == 0 || $code == 143 ]] || { tail -20 "$W/agent.log" >&2; fail "SIGTERM: exit status $code"; }
no_noise "$W/agent.log" run
bad=$(grep -c -v '^{' "$W/agent.log" || true)
(( bad == 0 )) || { grep -v '^{' "$W/agent.log" | head -5 >&2; fail "$bad log lines are not JSON (NODEATLAS_LOG_FORMAT=json)"; }
jq -e -s 'length > 0' "$W/agent.log" >/dev/null || fail "the log is not JSON lines"
pass "SIGTERM stops it (exit $code); its $(wc -l <"$W/agent.log") log lines are JSON"

# --- 5. doctor, once it exists ------------------------------------------------------------------------
if in_pod --help 2>/dev/null | grep -q '^  doctor '; then
  echo "==> doctor"
  in_pod doctor >"$W/doctor.out" 2>"$W/doctor.err" || true
  cat "$W/doctor.out"
  no_noise "$W/doctor.err" doctor
  [[ -s $W/doctor.out ]] || fail "doctor printed nothing: $(cat "$W/doctor.err")"
  pass "doctor ran in the container"
else
  echo "  skip: the image has no doctor command yet"
fi

echo "image e2e passed in $(( $(date +%s) - start )) s"
