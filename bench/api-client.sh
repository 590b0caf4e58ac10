#!/usr/bin/env bash
# Issue 36, "fewer classes in the agent": what fabric8's client costs the agent's idle start and a
# 32-claim burst, against clients of the JDK's java.net.http for the same calls (ApiClientProbe, an
# agent test class). Each measured JVM runs with the agent's flags (systemd/nodeatlas.env), serves the
# kubelet's registration over a unix socket, reads the kubeconfig, GETs the Node, lists the node's
# ResourceSlices, creates those of 256 GPUs and opens a watch on them, against fabric8's CRUD mock in
# another JVM; then 32 concurrent claim GETs and one more list. Modes:
#   fabric8  today's agent: fabric8's client and model;
#   thin     java.net.http + a plain ObjectMapper over fabric8's model classes (NodeSlices unchanged);
#   stream   java.net.http + Jackson's streaming parser and generator, no model classes.
# Prints per mode the median RSS 5 s after the start ("idle") and 35 s after the burst, and from one
# more run each the classes loaded (by library) and NMT's class metadata at idle.
#   bench/api-client.sh [runs, default 3; 0: only the class and metadata breakdown]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
runs="${1:-3}"
modes=(fabric8 thin stream)
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi
read -r -a jvm <<<"$NODEATLAS_JAVA_OPTS"
java_bin="${JAVA:-java}"
cp_file="agent/target/api-client.classpath"
if [[ -n "${AGENT_BENCH_CLASSPATH:-}" ]]; then
  cp "$AGENT_BENCH_CLASSPATH" "$cp_file"
else
  test_classpath agent "$cp_file" SdNotifierTest
fi
work="$(mktemp -d)"
api_pid=""
trap '[[ -n "$api_pid" ]] && kill "$api_pid" 2>/dev/null; rm -rf "$work"' EXIT
cp "$cp_file" "$work/classpath"
snapshot_classpath "$work/classpath" "$work/classes"
cp_="$(cat "$work/classpath")"

"$java_bin" -cp "$cp_" io.nodeatlas.agent.bench.ApiClientProbe api "$work/api.url" >"$work/api.log" 2>&1 &
api_pid=$!
for ((i = 0; i < 600; i++)); do [[ -s "$work/api.url" ]] && break; sleep 0.1; done
[[ -s "$work/api.url" ]] || { cat "$work/api.log" >&2; echo "bench: the API mock did not start" >&2; exit 1; }
cat >"$work/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: mock, cluster: {server: "$(cat "$work/api.url")"}}]
users: [{name: bench, user: {token: bench}}]
contexts: [{name: mock, context: {cluster: mock, user: bench}}]
current-context: mock
YAML

rss() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

# measure MODE [extra JVM flags...] -> "IDLE_MIB AFTER_BURST_MIB" into $work/result (and $work/MODE.nmt at idle
# when NMT is on)
measure() {
  local mode="$1" pid idle after out="$work/$1.out"; shift
  "$java_bin" -cp "$cp_" io.nodeatlas.agent.bench.ApiClientProbe clean "$work/api.url"
  rm -f "$work/sock" "$work/in"; mkfifo "$work/in"
  "$java_bin" "${jvm[@]}" "$@" -cp "$cp_" io.nodeatlas.agent.bench.ApiClientProbe "$mode" "$work/kubeconfig" "$work/sock" \
    <"$work/in" >"$out" 2>&1 &
  pid=$!
  exec 9>"$work/in"
  for ((i = 0; i < 1800; i++)); do grep -qs "^ready" "$out" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  grep -q "^ready" "$out" || { cat "$out" >&2; kill "$pid" 2>/dev/null; echo "bench: $mode did not start (java $* ...)" >&2; exit 1; }
  sleep 5
  idle=$(rss "$pid")
  if [[ " $* " == *NativeMemoryTracking* ]]; then
    jcmd "$pid" VM.native_memory summary >"$work/$mode.nmt" 2>&1 || true
  fi
  if [[ -f "$work/$mode.classes" ]]; then cp "$work/$mode.classes" "$work/$mode.classes.idle"; fi
  echo burst >&9
  for ((i = 0; i < 600; i++)); do grep -qs '^done' "$out" && break; sleep 0.1; done
  grep -q '^done' "$out" || { cat "$out" >&2; kill "$pid"; echo "bench: $mode's burst failed" >&2; exit 1; }
  sleep 35
  after=$(rss "$pid")
  exec 9>&-
  wait "$pid" 2>/dev/null || true
  echo "$idle $after" >"$work/result"
}

for mode in "${modes[@]}"; do : >"$work/$mode.idle"; : >"$work/$mode.after"; done
for ((r = 0; r < runs; r++)); do
  for ((k = 0; k < ${#modes[@]}; k++)); do # a different mode goes first in each run
    mode="${modes[$(((k + r) % ${#modes[@]}))]}"
    measure "$mode"
    read -r idle after <"$work/result"
    echo "run $((r + 1)) $mode: idle $idle MiB, 35 s after the burst $after MiB" >&2
    echo "$idle" >>"$work/$mode.idle"; echo "$after" >>"$work/$mode.after"
  done
done
printf '%d runs, java %s, flags: %s\n' "$runs" "$java_bin" "$NODEATLAS_JAVA_OPTS"
f_idle=$(median <"$work/fabric8.idle" || echo 0)
for mode in "${modes[@]}"; do
  ((runs > 0)) || break
  idle=$(median <"$work/$mode.idle"); after=$(median <"$work/$mode.after")
  printf '  %-8s RSS idle %6.1f MiB, 35 s after the burst %6.1f MiB; idle against fabric8 %sx (%+.1f MiB)\n' "$mode" "$idle" \
    "$after" "$(ratio "$idle" "$f_idle")" "$(awk -v a="$idle" -v b="$f_idle" 'BEGIN {print a - b}')"
done

echo "classes loaded at idle (and until exit, after the burst), and NMT's class metadata (Class + Metaspace + Symbol,"
echo "committed) at idle:"
for mode in "${modes[@]}"; do
  measure "$mode" -Xlog:class+load=info:file="$work/$mode.classes" -XX:NativeMemoryTracking=summary
  meta=$(grep -E '^-? *(Class|Metaspace|Symbol) \(' "$work/$mode.nmt" | sed 's/.*committed=\([0-9]*\)KB.*/\1/' |
    awk '{m += $1} END {printf "%.1f", m / 1024}')
  printf '  %-8s %s MiB metadata; ' "$mode" "$meta"
  printf '(%d after the burst) ' "$(wc -l <"$work/$mode.classes")"
  awk '{print $2}' "$work/$mode.classes.idle" | awk '
    /^io\.fabric8\.kubernetes\.client/ {g = "fabric8-client"} /^io\.fabric8\.kubernetes\.api\.model/ {g = "fabric8-model"}
    /^com\.fasterxml\.jackson\.databind/ {g = "jackson-databind"} /^com\.fasterxml\.jackson\.core/ {g = "jackson-core"}
    /^org\.snakeyaml|^org\.yaml|^com\.fasterxml\.jackson\.dataformat\.yaml/ {g = "yaml"}
    /^(java|javax|jdk|sun|com\.sun)\./ {g = "JDK"}
    {if (g == "") g = "other"; c[g]++; t++; g = ""}
    END {printf "%d classes:", t; n = split("fabric8-client fabric8-model jackson-databind jackson-core yaml JDK other", k, " ");
      for (i = 1; i <= n; i++) printf " %s %d", k[i], c[k[i]]; printf "\n"}'
done
