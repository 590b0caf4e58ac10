#!/usr/bin/env bash
# JMH benchmark of the PCI tree's share of a whole discovery (cpu-numa, nic-rdma and accel sources,
# NodeDiscovery with and without the tree) on the largest hwloc corpus snapshot, the two largest with
# PCI and a generated node of 64 PFs x 64 VFs; prints the ratio per host (issue 13: at most 10 %).
#   bench/jmh-pci-tree.sh [host...]     e.g. bench/jmh-pci-tree.sh vfs-64x64
# Needs: the shared corpus (NODEATLAS_CONFORMANCE_DIR, default ../shared/conformance), tar, bzip2.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$here/../shared/conformance}"
cd "$here"
MVN_OFFLINE=${MVN_OFFLINE:--o}
CP_FILE="$PWD/discovery-nic-rdma/target/pci-bench-classpath.txt"
# One invocation, so that the reactor's modules resolve to their target/classes (nothing is installed);
# nic-rdma builds last, so its classpath is the one left in the file.
./mvnw -q -B $MVN_OFFLINE -pl discovery-nic-rdma -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE" >&2
CP="discovery-nic-rdma/target/test-classes:discovery-nic-rdma/target/classes:$(cat "$CP_FILE")"
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$CP" -Dnodeatlas.conformance.dir="$corpus" \
  io.nodeatlas.discovery.net.bench.PciTreeCostBench "$@"
