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
./mvnw -q -B $MVN_OFFLINE -pl discovery-nic-rdma -am test-compile >&2
# One invocation, so that the reactor's modules resolve (nothing is installed); nic-rdma builds last, so
# its classpath is the one left in the file. Offline without the dependency plugin's own dependencies,
# fall back to the test classpath surefire recorded in the module's last test run, with the reactor's
# jars replaced by their freshly compiled classes.
if ! ./mvnw -q -B $MVN_OFFLINE -pl discovery-nic-rdma -am test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE" >/dev/null 2>&1; then
  report=$(ls discovery-nic-rdma/target/surefire-reports/TEST-*.xml 2>/dev/null | head -1)
  if [ -z "$report" ]; then
    echo "no classpath: run ./mvnw -o -pl discovery-nic-rdma -am verify once" >&2
    exit 2
  fi
  grep -o 'name="surefire.test.class.path" value="[^"]*"' "$report" | sed 's/.*value="//; s/"$//' \
    | sed -E 's#/target/[a-z-]+-[0-9][^/:]*-tests\.jar#/target/test-classes#g; s#/target/[a-z-]+-[0-9][^/:]*\.jar#/target/classes#g' \
    > "$CP_FILE"
fi
CP="discovery-nic-rdma/target/test-classes:discovery-nic-rdma/target/classes:$(cat "$CP_FILE")"
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$CP" -Dnodeatlas.conformance.dir="$corpus" \
  io.nodeatlas.discovery.net.bench.PciTreeCostBench "$@"
