#!/usr/bin/env bash
# JMH benchmark of in-process cpu-numa discovery on an hwloc corpus snapshot (default: the largest,
# 256ppc-8n8s4t), followed by lstopo on the same tree and the ratio.
#   bench/jmh-cpu-numa.sh [snapshot-name]
# Needs: the shared corpus (NODEATLAS_CONFORMANCE_DIR, default ../shared/conformance), lstopo-no-graphics (hwloc), tar, bzip2.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$here/../shared/conformance}"
cd "$here"
./mvnw -q -B -o -pl discovery-cpu-numa test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >&2
cp="discovery-cpu-numa/target/test-classes:discovery-cpu-numa/target/classes:$(cat discovery-cpu-numa/target/bench.classpath)"
exec java -cp "$cp" -Dnodeatlas.conformance.dir="$corpus" \
  io.nodeatlas.discovery.cpu.bench.CpuNumaDiscoveryBench "$@"
