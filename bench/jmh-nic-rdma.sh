#!/usr/bin/env bash
# JMH benchmark of nic-rdma discovery on a generated node of 64 PFs x 64 VFs (and 4, 16 PFs for the
# growth curve). Runs from the module's test classpath; prints ms per discovery, us per VF and the
# time ratio against the smallest node. Arguments (optional): PF counts, e.g. `4 64`.
set -euo pipefail
cd "$(dirname "$0")/.."
MVN_OFFLINE=${MVN_OFFLINE:--o}
./mvnw -q -B $MVN_OFFLINE -pl discovery-nic-rdma test-compile
CP_FILE=discovery-nic-rdma/target/bench-classpath.txt
./mvnw -q -B $MVN_OFFLINE -pl discovery-nic-rdma dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/$CP_FILE" >/dev/null
CP="discovery-nic-rdma/target/test-classes:discovery-nic-rdma/target/classes:$(cat "$CP_FILE")"
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$CP" io.nodeatlas.discovery.net.bench.NicRdmaDiscoveryBenchmark "$@"
