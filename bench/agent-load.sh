#!/usr/bin/env bash
# Load benchmark of `nodeatlas run` as a kubelet plugin (see AgentLoadBench):
#   bench/agent-load.sh [N concurrent claims, default 64] [rounds, default 20]
# N concurrent NodePrepareResources calls of 8 devices each over the real unix socket, against the
# nodeatlas jar in its own JVM (with the JVM options the systemd unit and image use, override with
# NODEATLAS_JAVA_OPTS), the API server played by fabric8's CRUD mock behind a small HTTP front.
# Prints throughput and p50/p99 latency twice: end to end (the mock serves every claim GET) and the
# agent's own share (the front answers the claim GET at once; same agent code and HTTP round trip),
# then the agent's RSS idle, under load and after it, and its thread count.
# Aims: p99 < 5 ms, idle RSS < 64 MiB. NODEATLAS_VERBOSITY=1 makes the agent log per-claim spans
# ("prepare spans": API lookup, checks, CDI write, checkpoint commit, in microseconds) to its log.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-64}"
rounds="${2:-20}"
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  # Same line as systemd/nodeatlas.env.
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi

# The jar under test is the one users run (the cli module's); the benchmark driver and the API
# server mock live in the agent module's tests.
./mvnw -q -B -o -pl cli -am package -DskipTests
cp_file="agent/target/bench.classpath"
# dependency:build-classpath cannot resolve the sibling modules offline (nothing is installed): the
# class path is the one surefire used for a quick agent test (bench/lib.sh).
source bench/lib.sh
test_classpath agent "$cp_file" SdNotifierTest
work="$(mktemp -d)"
trap 'cp "$work/agent.log" agent/target/agent-load.log 2>/dev/null; rm -rf "$work"' EXIT
# shellcheck disable=SC2086
java -cp "$(cat "$cp_file")" \
  io.nodeatlas.agent.bench.AgentLoadBench cli/target/nodeatlas.jar "$work" "$n" "$rounds" $NODEATLAS_JAVA_OPTS \
  2> >(grep -v '^INFO: \|MockWebServer\|^[A-Z][a-z][a-z] [0-9]' >&2)
