#!/usr/bin/env bash
# Issue 36's row "`run` idle RSS / 35 s after a 32-claim burst": `nodeatlas run`'s RSS idle against the
# library floor (LibraryFloor, below: the idle RSS of a JVM with the same flags that only does what no
# kubelet plugin on these libraries can skip: gRPC on a unix socket, one read from an API server over
# TLS, JSON), and 35 s after a burst of N concurrent claims against its own idle figure, in the same
# run, with the agent's JVM flags (systemd/nodeatlas.env's NODEATLAS_JAVA_OPTS, the flags the image's
# entry point passes too; override with NODEATLAS_JAVA_OPTS). The agent runs under bench/agent-load.sh's
# driver (AgentLoadBench: the real jar in its own JVM, a fabric8 API mock behind an HTTPS front, as
# the floor reads over TLS and an agent reaches its API server; N concurrent NodePrepareResources of 8
# devices, then Unprepare, round after round); idle is sampled 5 s after registration and the first
# publish of the node's slices, loaded is the peak sampled while the claims run, "after" SETTLE seconds
# (default 35) after the last round. BENCH_TLS=false: the API front over plain HTTP, as before. A hello
# JVM with the same flags is printed beside. Medians of R runs, agent and floor interleaved, then the
# ROW lines of bench/lib.sh. Aims: idle <= 1.3x the library floor; after
# the burst <= 1.1x idle.
#   bench/agent-memory.sh [runs, default 3] [N concurrent claims, default 32] [rounds, default 5]
# NODEATLAS_JAR=path measures that jar instead of building this tree's. The agent inherits this
# environment (MALLOC_ARENA_MAX, say).
# BREAKDOWN=1 adds one more run with the class-load log and NMT (-XX:NativeMemoryTracking=summary) and
# prints the loaded classes per library and the JVM's own summary at exit: where the idle memory goes.
# BREAKDOWN_KEEP=dir keeps that run's class-load log and the agent's log there.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
runs="${1:-3}"
n="${2:-32}"
rounds="${3:-5}"
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi
read -r -a jvm <<<"$NODEATLAS_JAVA_OPTS"
java_bin="${JAVA:-java}" # the driver starts the agent with its own java (java.home)

# NODEATLAS_JAR=path measures another jar (a saved build of an older commit) instead of building this one.
jar="${NODEATLAS_JAR:-}"
# The driver and the API mock are agent test classes. AGENT_BENCH_CLASSPATH=file reuses a class path
# written by an earlier run instead of building, for a series of runs over JVM flags.
if [[ -z "$jar" || -z "${AGENT_BENCH_CLASSPATH:-}" ]]; then
  bench_build
fi
jar="${jar:-cli/target/nodeatlas.jar}"
settle="${SETTLE:-35}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -n "${AGENT_BENCH_CLASSPATH:-}" ]]; then cp "$AGENT_BENCH_CLASSPATH" "$work/classpath"; else bench_classpath agent >"$work/classpath"; fi
cp_file="$work/classpath"
# The library floor's class path: the agent's classes and only the libraries it uses (LibraryFloor).
tr ':' '\n' <"$cp_file" | grep -E '/agent/target/(test-)?classes$|/(grpc-[^/]*|protobuf-java-[^/]*|guava-[^/]*|failureaccess-[^/]*|perfmark-api-[^/]*|jackson-core-[^/]*|slf4j-[^/]*)\.jar$' |
  paste -sd: >"$work/floor.classpath"
snapshot_classpath "$cp_file" "$work/classes"
snapshot_classpath "$work/floor.classpath" "$work/floor-classes"
hello_command "$work/hello" "$java_bin" "${jvm[@]}"

# The library floor (LibraryFloor): a JVM with the agent's flags that serves the kubelet's registration
# over a unix socket with grpc-java, reads one list over TLS with HttpsURLConnection and parses it with
# jackson-core, and nothing else; its RSS 5 s after the calls, as the agent's idle figure is taken.
keytool="$(dirname "$(readlink -f "$(command -v "$java_bin")")")/keytool"
"$keytool" -genkeypair -alias api -keyalg EC -groupname secp256r1 -dname CN=127.0.0.1 -ext san=ip:127.0.0.1 \
  -validity 2 -keystore "$work/api.p12" -storetype PKCS12 -storepass bench-only -keypass bench-only >/dev/null 2>&1
"$keytool" -exportcert -alias api -keystore "$work/api.p12" -storepass bench-only -file "$work/api.crt" >/dev/null 2>&1
"$keytool" -importcert -noprompt -alias api -file "$work/api.crt" -keystore "$work/trust.p12" -storetype PKCS12 \
  -storepass bench-only >/dev/null 2>&1
floor_cp="$(cat "$work/floor.classpath")"
"$java_bin" -cp "$floor_cp" io.nodeatlas.agent.bench.LibraryFloor api "$work/api.p12" bench-only "$work/api.port" &
api_pid=$!
trap 'kill "$api_pid" 2>/dev/null; rm -rf "$work"' EXIT
for ((i = 0; i < 600; i++)); do [[ -s "$work/api.port" ]] && break; sleep 0.1; done
[[ -s "$work/api.port" ]] || { echo "bench: the HTTPS server of the library floor did not start" >&2; exit 1; }
library_floor() { # -> the serve JVM's RSS in MiB
  local sock="$work/floor.sock" pid rss i
  rm -f "$sock" "$work/floor.out"
  "$java_bin" "${jvm[@]}" -cp "$floor_cp" io.nodeatlas.agent.bench.LibraryFloor serve "$sock" \
    "https://127.0.0.1:$(cat "$work/api.port")/apis/resource.k8s.io/v1/resourceslices" "$work/trust.p12" bench-only \
    >"$work/floor.out" 2>&1 &
  pid=$!
  for ((i = 0; i < 600; i++)); do grep -qs "^ready" "$work/floor.out" && break; sleep 0.1; done
  grep -q '^ready' "$work/floor.out" || { cat "$work/floor.out" >&2; kill "$pid"; echo "bench: the library floor did not start" >&2; exit 1; }
  "$java_bin" -cp "$floor_cp" io.nodeatlas.agent.bench.LibraryFloor call "$sock" 3
  sleep 5
  rss=$(awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$rss"
}

nmt_driver=()
drive() { # extra JVM flags for the agent... -> the driver's output
  mkdir -p "$work/run"
  "$java_bin" -cp "$(cat "$cp_file")" -Dnodeatlas.bench.settleSeconds="$settle" -Dnodeatlas.bench.tls="${BENCH_TLS:-true}" \
    "${nmt_driver[@]}" \
    io.nodeatlas.agent.bench.AgentLoadBench "$jar" "$work/run" "$n" "$rounds" "${jvm[@]}" "$@" \
    2> >(grep -v '^INFO: \|MockWebServer\|^[A-Z][a-z][a-z] [0-9]' >&2)
}

: >"$work/idle"; : >"$work/loaded"; : >"$work/after"; : >"$work/hello.rss"; : >"$work/anon"; : >"$work/floor.rss"
for ((run = 0; run < runs; run++)); do
  out="$(drive)"
  grep 'RSS' <<<"$out" >&2
  sed -n 's/.*RSS idle: \([0-9.]*\) MiB, under load (peak sampled): \([0-9.]*\) MiB, idle after load: \([0-9.]*\) MiB.*/\1 \2 \3/p' <<<"$out" >"$work/line"
  read -r idle loaded after <"$work/line"
  echo "$idle" >>"$work/idle"; echo "$loaded" >>"$work/loaded"; echo "$after" >>"$work/after"
  sed -n 's/.*RssAnon idle: \([0-9.]*\) MiB, under load (peak sampled): \([0-9.]*\) MiB.*/\1 \2/p' <<<"$out" >>"$work/anon"
  peak_rss_kib "${hello[@]}" | awk '{print $1 / 1024}' >>"$work/hello.rss"
  library_floor >>"$work/floor.rss"
done
floor_mib=$(median <"$work/floor.rss")
idle=$(median <"$work/idle"); loaded=$(median <"$work/loaded"); after=$(median <"$work/after")
hello_mib=$(median <"$work/hello.rss" | awk '{printf "%.1f", $1}')
anon_idle=$(awk '{print $1}' "$work/anon" | median); anon_loaded=$(awk '{print $2}' "$work/anon" | median)
printf '%d runs, %d concurrent claims x %d rounds, java %s, flags: %s\n' "$runs" "$n" "$rounds" "$java_bin" "$NODEATLAS_JAVA_OPTS"
printf '  agent RSS idle %s MiB, loaded (peak) %s MiB, %s s after the burst %s MiB; hello JVM (same flags) %s MiB\n' \
  "$idle" "$loaded" "$settle" "$after" "$hello_mib"
# RssAnon: the agent's own pages; RSS less RssAnon is file pages (jar, libjvm, the JDK's CDS archive)
# that other processes share and the kernel can drop, which a cgroup charges as page cache.
printf '  agent RssAnon idle %s MiB, loaded %s MiB\n' "$anon_idle" "$anon_loaded"
printf '  library floor (LibraryFloor: grpc-java unix-socket server, one TLS read, jackson-core; same flags): %s MiB idle\n' "$floor_mib"
ri=$(ratio "$idle" "$floor_mib")
row "run idle RSS" "$idle MiB" "LibraryFloor $floor_mib MiB (hello JVM $hello_mib)" "${ri}x" "<= 1.3x the floor" "$(le "$ri" 1.3)"
ra=$(ratio "$after" "$idle")
row "run RSS ${settle} s after a $n-claim burst" "$after MiB (peak $loaded)" "its idle $idle MiB" "${ra}x" "<= 1.1x idle" "$(le "$ra" 1.1)"

if [[ "${BREAKDOWN:-0}" == 1 ]]; then
  # NMT at idle and SETTLE s after the burst (the growth by kind), then at exit.
  nmt_driver=(-Dnodeatlas.bench.nmt=true)
  drive -Xlog:class+load=info:file="$work/classes.log" -XX:NativeMemoryTracking=summary \
    -XX:+UnlockDiagnosticVMOptions -XX:+PrintNMTStatistics | sed -n '/^NMT committed/,/Total/p' 
  [[ -n "${BREAKDOWN_KEEP:-}" ]] && mkdir -p "$BREAKDOWN_KEEP" && cp "$work/classes.log" "$work/run/agent.log" "$BREAKDOWN_KEEP/"
  echo "classes loaded by the agent (until exit), by library:"
  awk '{print $2}' "$work/classes.log" | awk -F. '
    /^io\.fabric8\./ {g="fabric8"} /^io\.grpc\.netty\./ {g="grpc-netty (shaded netty)"}
    /^io\.grpc\./ && !/^io\.grpc\.netty\./ {g="grpc"} /^com\.fasterxml\.jackson/ {g="jackson"}
    /^com\.google\.protobuf/ {g="protobuf"} /^io\.nodeatlas\./ {g="nodeatlas"} /^okhttp3\.|^okio\./ {g="okhttp"}
    /^io\.vertx\.|^io\.netty\./ {g="vertx/netty"} /^(java|javax|jdk|sun|com\.sun)\./ {g="JDK"}
    {if (g == "") g = "other"; c[g]++; t++; g = ""} END {for (k in c) printf "  %6d  %s\n", c[k], k; printf "  %6d  total\n", t}' | sort -rn
  # Metaspace grows with the class files a loader defines (the JDK's own come mapped from its CDS
  # archive): the bytes of the jar's class files the agent loaded, per library, apportion it.
  echo "class-file bytes the agent loaded from the jar, by library (KiB):"
  unzip -l "$jar" | awk 'NR > 3 && $4 ~ /\.class$/ {n = $4; sub(/\.class$/, "", n); gsub("/", ".", n); print "S", n, $1}' >"$work/sizes"
  awk '{print "L", $2}' "$work/classes.log" | cat "$work/sizes" - | awk '
    $1 == "S" {size[$2] = $3; next}
    $1 == "L" && ($2 in size) {n = $2; g = "other";
      if (n ~ /^io\.fabric8\./) g = "fabric8"; else if (n ~ /^io\.grpc\.netty\./) g = "grpc-netty (shaded netty)";
      else if (n ~ /^io\.grpc\./) g = "grpc"; else if (n ~ /^com\.fasterxml\.jackson/) g = "jackson";
      else if (n ~ /^com\.google\.protobuf/) g = "protobuf"; else if (n ~ /^io\.nodeatlas\./) g = "nodeatlas";
      else if (n ~ /^com\.google\.common/) g = "guava";
      b[g] += size[n]; t += size[n]}
    END {for (k in b) printf "  %6d  %s\n", b[k] / 1024, k; printf "  %6d  total\n", t / 1024}' | sort -rn
  # A thin client for the agent's few API calls (claim GET, slice list/create/update/delete, watch) on
  # java.net.http, which fabric8's JDK transport loads already, and Jackson trees would drop fabric8's
  # classes: their share of the class bytes, applied to the class metadata (metaspace, class space,
  # symbols) NMT reports at exit, is the estimate (the heap fabric8's client holds comes on top).
  awk '{print "L", $2}' "$work/classes.log" | cat "$work/sizes" - | awk '
    $1 == "S" {size[$2] = $3; next}
    $1 == "L" && ($2 in size) {t += size[$2]; if ($2 ~ /^io\.fabric8\./) f += size[$2]}
    END {print f / t}' >"$work/share"
  grep -E '^-? *(Class|Metaspace|Symbol) \(' "$work/run/agent.log" | sed 's/.*committed=\([0-9]*\).*/\1/' |
    awk -v share="$(cat "$work/share")" '{m += $1} END {printf "thin-client estimate: fabric8 is %.0f%% of the class bytes loaded from the jar; class metadata %.1f MiB, of which ~%.1f MiB would go\n", share * 100, m / 1048576, share * m / 1048576}'
  echo "NMT summary at exit (committed):"
  grep -E '^-? *(Total|Java Heap|Class|Thread|Code|GC|Internal|Metaspace|Other|Symbol|Arena)|\(classes #' "$work/run/agent.log" | head -30 || true
fi
