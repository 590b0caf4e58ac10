#!/usr/bin/env bash
# End-to-end: the packaged agent, as users run it. `nodeatlas run` from cli/target/nodeatlas.jar (the
# shaded jar, with the JVM options of systemd/nodeatlas.env) registers over a real unix socket, publishes
# its ResourceSlices to a fabric8 mock API server, and prepares and unprepares claims whose allocation it
# reads back from that server, at one and at 32 claims at once (bench/prepare.sh with a few rounds:
# io.nodeatlas.agent.bench.PrepareBench fails on any Prepare or Unprepare error). Tests run against the
# modules' classes; this proves what the jar's packaging keeps (service files, shaded names) still reads
# and writes the API objects the agent uses.
# Needs the build (./mvnw -B -pl cli -am package) and java.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ -f cli/target/nodeatlas.jar ]] || { echo "FAIL: build first: ./mvnw -B -pl cli -am package" >&2; exit 1; }
out="$(NODEATLAS_BENCH_SKIP_BUILD=1 NODEATLAS_BENCH_PATH_ROUNDS=20 bench/prepare.sh 40 2 2>&1)" || { echo "$out" | tail -30 >&2; echo "FAIL: the packaged agent did not prepare every claim" >&2; exit 1; }
echo "$out" | grep -E '^\| N=|p50|floor' | head -6 || true
echo "agent jar: registered, published and prepared every claim at N=1 and N=32"
