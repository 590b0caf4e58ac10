#!/usr/bin/env bash
# Prepare latency and CPU (issue 36's rows "Prepare p99, N=32", "Prepare p99, N=1", "CPU per
# Prepare+Unprepare"), see PrepareBench:
#   bench/prepare.sh [rounds at N=1, default 2000] [rounds at N=32, default 100] [rounds of the disk run, default: as N=32]
# The nodeatlas jar in its own JVM (the JVM options of systemd/nodeatlas.env, override with
# NODEATLAS_JAVA_OPTS), the claim GET answered at once by a small HTTP front; this process plays the
# kubelet over the real unix socket. Two agents, one after the other: state and CDI on tmpfs (/dev/shm)
# at N=1 and N=32, then on the machine's disk (BENCH_DISK_DIR, default target/ of this tree) at N=32.
# The floor, measured in the same run at the same concurrency and interleaved with the Prepare rounds:
# one gRPC round trip to the same agent + one GET of the claim from the same front + two small atomic
# file writes (fsync, rename, directory fsync) on the same file system. Aims: p99 <= 2.5x the floor at
# N=32, <= 2x at N=1; the agent's CPU per Prepare+Unprepare <= 0.5 ms (/proc/PID/stat over all
# measured calls), printed beside the agent's CPU per floor gRPC call, with how often its threads
# blocked per call (voluntary context switches: hand-offs between threads and I/O waits).
# NODEATLAS_VERBOSITY=1 makes the agent log per-claim spans to agent/target/prepare-bench*.log.
# NODEATLAS_BENCH_CLAIM_BYTES=1400000 pads every claim answer (issue 12 case 3). NODEATLAS_BENCH_SKIP_BUILD=1
# measures the jar already built (bench/lib.sh bench_build). Then the in-process
# figures of PrepareBenchPath (NODEATLAS_BENCH_PATH_ROUNDS, default 300; 0 skips them).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
single="${1:-2000}"
many="${2:-100}"
disk_rounds="${3:-$many}"
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  # Same line as systemd/nodeatlas.env.
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi
bench_build
cp="$(bench_classpath agent)"
work="$(mktemp -d)"
disk="${BENCH_DISK_DIR:-$bench_root/target}"
mkdir -p "$disk"
trap 'rm -rf "$work"' EXIT
disk_fs="$(df -PT "$disk" | awk 'NR == 2 {print $2}')"

bench() { # label, system properties, rounds N=1, rounds N=32 -> RESULT lines into $work/$label.out
  local label="$1" props="$2"
  mkdir -p "$work/$label"
  # shellcheck disable=SC2086
  java -cp "$cp" -Dnodeatlas.bench.claimBytes="${NODEATLAS_BENCH_CLAIM_BYTES:-0}" $props \
    io.nodeatlas.agent.bench.PrepareBench cli/target/nodeatlas.jar "$work/$label" "$3" "$4" $NODEATLAS_JAVA_OPTS \
    2> >(grep -v '^INFO: \|MockWebServer\|^[A-Z][a-z][a-z] [0-9]' >&2) | tee "$work/$label.out" | grep -v '^RESULT'
  cp "$work/$label/agent.log" "agent/target/prepare-bench-$label.log" 2>/dev/null || true
}
echo "== state and CDI on tmpfs"
bench tmpfs "" "$single" "$many"
echo "== state and CDI on $disk ($disk_fs)"
bench disk "-Dnodeatlas.bench.stateDir=$disk -Dnodeatlas.bench.concurrency=32" 0 "$disk_rounds"

# RESULT N p50 p99 floor-p50 floor-p99 cpu-per-prep+unprep cpu-per-floor-call waits floor-waits
result() { awk -v n="$2" '$1 == "RESULT" && $2 == n' "$work/$1.out"; }
prepare_row() { # label, N, what, aim
  local n p50 p99 f50 f99 r
  read -r _ n p50 p99 f50 f99 _ < <(result "$1" "$2")
  r=$(ratio "$p99" "$f99")
  row "$3" "p99 $p99 ms (p50 $p50)" "floor p99 $f99 ms (p50 $f50): gRPC + claim GET + 2 writes" "${r}x" "<= ${4}x the floor" "$(le "$r" "$4")"
}
prepare_row tmpfs 32 "Prepare p99, N=32, state and CDI on tmpfs" 2.5
prepare_row disk 32 "Prepare p99, N=32, state and CDI on disk ($disk_fs)" 2.5
prepare_row tmpfs 1 "Prepare p99, N=1, tmpfs" 2
read -r _ _ _ _ _ _ c1 f1 w1 fw1 < <(result tmpfs 1)
read -r _ _ _ _ _ _ c32 f32 w32 fw32 < <(result tmpfs 32)
# Judged at N=32, where the agent's timers and the JIT's last compilations spread over many calls; N=1
# beside it (a Prepare+Unprepare there takes a few ms of wall time, which carries the agent's idle CPU).
row "CPU per Prepare+Unprepare at N=32 (N=1 beside); thread waits per Prepare+Unprepare" "$c32 ms, $w32 waits (N=1: $c1 ms, $w1 waits)" \
  "floor: agent CPU $f32 ms per gRPC call, $fw32 waits (N=1: $f1 ms, $fw1)" "$(ratio "$c32" 0.5)x the aim" "<= 0.5 ms" "$(le "$c32" 0.5)"

# The agent's own part of a Prepare, in this process and on one thread (no gRPC, no HTTP, the lookup
# answered from memory): CPU per Prepare and per Unprepare against two atomic writes, see PrepareBenchPath.
if [[ "${NODEATLAS_BENCH_PATH_ROUNDS:-300}" != 0 ]]; then
  # shellcheck disable=SC2086
  java $NODEATLAS_JAVA_OPTS -cp "$cp" io.nodeatlas.agent.bench.PrepareBenchPath "${NODEATLAS_BENCH_PATH_ROUNDS:-300}"
fi
