#!/usr/bin/env bash
# Load benchmark of `nodeatlas run` as a kubelet plugin (see AgentLoadBench):
#   bench/agent-load.sh [N concurrent claims, default 64] [rounds, default 20]
# N concurrent NodePrepareResources calls of 8 devices each over the real unix socket, against the
# agent jar in its own JVM (with the JVM options the systemd unit and image use, override with
# NODEATLAS_JAVA_OPTS), the API server played by fabric8's CRUD mock. Prints throughput, p50/p99
# latency and the agent's RSS idle and under load. Aims: p99 < 5 ms, idle RSS < 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-64}"
rounds="${2:-20}"
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  # Same line as systemd/nodeatlas.env.
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi

./mvnw -q -B -o -pl agent package -DskipTests
cp_file="agent/target/bench.classpath"
./mvnw -q -B -o -pl agent dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/$cp_file" >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
java -cp "agent/target/test-classes:agent/target/classes:$(cat "$cp_file")" \
  io.nodeatlas.agent.bench.AgentLoadBench agent/target/nodeatlas.jar "$work" "$n" "$rounds" $NODEATLAS_JAVA_OPTS \
  2> >(grep -v '^INFO: \|MockWebServer\|^[A-Z][a-z][a-z] [0-9]' >&2)
