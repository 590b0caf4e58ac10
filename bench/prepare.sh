#!/usr/bin/env bash
# Prepare latency (issue 14, row "Prepare of one claim with 8 devices"), see PrepareBench:
#   bench/prepare.sh [rounds at N=1, default 2000] [rounds at N=32, default 100]
# The nodeatlas jar in its own JVM (the JVM options of systemd/nodeatlas.env, override with
# NODEATLAS_JAVA_OPTS), state and CDI directories on /dev/shm, the claim GET answered at once by a small
# HTTP front; this process plays the kubelet over the real unix socket. Prints p50/p99 of Prepare at
# N=1 and N=32 concurrent claims and each as a ratio to the floor measured in the same run: one gRPC
# round trip to the same agent plus two small atomic file writes (fsync, rename, directory fsync) on
# the same tmpfs. Aim: p99 < 5 ms at both N. NODEATLAS_VERBOSITY=1 makes the agent log per-claim spans
# ("prepare spans": API lookup, checks, CDI write, checkpoint commit, in microseconds) to
# agent/target/prepare-bench.log. The agent's CPU time per call (/proc/PID/stat) is printed against the
# floor's, with how often its threads blocked per call (voluntary context switches of /proc/PID/task/*:
# thread hand-offs and I/O waits, each a wake-up that costs latency on a busy machine), and then the in-process figures of PrepareBenchPath. NODEATLAS_BENCH_CLAIM_BYTES=1400000 pads every claim answer to that
# size (issue 12 case 3: 32 concurrent claims of 1.4 MB); the agent's peak RSS is printed either way.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
single="${1:-2000}"
many="${2:-100}"
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  # Same line as systemd/nodeatlas.env.
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi
if [[ -z "${NODEATLAS_BENCH_SKIP_BUILD:-}" ]]; then
  ./mvnw -q -B -o -pl cli -am package -DskipTests
fi
# The agent module's test classpath as Maven resolves it (the sibling modules' target/classes): read from
# the compiler's debug output, since the dependency plugin cannot be resolved offline here.
cp="$(./mvnw -X -B -o -pl agent -am test-compile 2>/dev/null \
  | grep '(f) testPath = \[.*/agent/target/test-classes' | tail -1 | sed 's/.*testPath = \[//; s/\]$//; s/, /:/g')"
[[ -n "$cp" ]] || { echo "cannot compute the agent's test classpath" >&2; exit 1; }
work="$(mktemp -d)"
trap 'cp "$work/agent.log" agent/target/prepare-bench.log 2>/dev/null; rm -rf "$work"' EXIT
# shellcheck disable=SC2086
java -cp "$cp" -Dnodeatlas.bench.claimBytes="${NODEATLAS_BENCH_CLAIM_BYTES:-0}" \
  io.nodeatlas.agent.bench.PrepareBench cli/target/nodeatlas.jar "$work" "$single" "$many" $NODEATLAS_JAVA_OPTS \
  2> >(grep -v '^INFO: \|MockWebServer\|^[A-Z][a-z][a-z] [0-9]' >&2) | tee "$work/bench.out"
# The machine lines of bench/table.sh: the p99 of each N against the aim, the floor's p99 beside it (from
# PrepareBench's table: N, samples, p50, p99, max | floor p50, floor p99 | ratios).
while read -r n p50 p99 fp50 fp99; do
  row "Prepare, 8 devices, N=$n" "p50 $p50 / p99 $p99 ms" "floor p50 $fp50 / p99 $fp99 ms" \
    "$(ratio "$p99" "$fp99")x the floor's p99" "p99 < 5 ms" "$(awk -v a="$p99" 'BEGIN {print (a < 5) ? 1 : 0}')"
done < <(awk '$1 ~ /^[0-9]+$/ && $6 == "|" && $9 == "|" {print $1, $3, $4, $7, $8}' "$work/bench.out")
# The agent's own part of a Prepare, in this process and on one thread (no gRPC, no HTTP, the lookup
# answered from memory): CPU per Prepare and per Unprepare against two atomic writes, see PrepareBenchPath.
# shellcheck disable=SC2086
java $NODEATLAS_JAVA_OPTS -cp "$cp" io.nodeatlas.agent.bench.PrepareBenchPath "${NODEATLAS_BENCH_PATH_ROUNDS:-300}"
