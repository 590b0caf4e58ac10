#!/usr/bin/env bash
# Issue 14, rows 3 and 4: in-process discovery against its floor, measured in the same run.
#   row 3: cpu-numa on the 256-CPU hwloc snapshot (256ppc-8n8s4t), JMH (CpuNumaDiscoveryBench);
#   row 4: nic-rdma on generated nodes of 4, 16 and 64 PFs x 64 VFs, each VF with its RDMA device
#          (256, 1,024 and 4,096 VFs), JMH (NicRdmaDiscoveryBenchmark), with the growth curve.
# The floor is bench/floor-reader.c (built here by gcc): it opens, reads and closes exactly the files,
# and lists exactly the directories, that one discovery run opened on the same tree, recorded from
# that run with strace. Every figure is a median (JMH iterations; floor rounds). Prints markdown rows.
#   bench/inprocess.sh [pfs...]        (default: 4 16 64)
# Needs: gcc, strace, python3, tar, bzip2; the shared corpus (NODEATLAS_CONFORMANCE_DIR, default
# ../shared/conformance). JMH iterations: JMH_ARGS (default "-f 1 -wi 3 -w 2 -i 5 -r 2"). The trees go
# to BENCH_DIR (default /dev/shm when it exists: 4,096 VFs are 400,000 files, slow to delete on disk).
# Other JMH runs on a shared machine hold /tmp/jmh.lock: ours ignore it (-Djmh.ignoreLock=true).
# BENCH_CLASSES: class folders put before the modules' own (to measure other compiled code, e.g. a
# base commit's target/classes saved aside, with this script and benches).
# The floor is timed before and after the JMH runs (load on a shared machine drifts); the lower
# median counts, so a ratio never looks better than it is.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$here/../shared/conformance}"
snapshot="${SNAPSHOT:-256ppc-8n8s4t}"
pfs=("$@")
((${#pfs[@]})) || pfs=(4 16 64)
jmh_args=(${JMH_ARGS:--f 1 -wi 3 -w 2 -i 5 -r 2})
rounds="${FLOOR_ROUNDS:-21}"
cd "$here"

bench_dir="${BENCH_DIR:-$([[ -d /dev/shm && -w /dev/shm ]] && echo /dev/shm || echo "${TMPDIR:-/tmp}")}"
work="$(mktemp -d "$bench_dir/nodeatlas-inprocess.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Build, and write each module's test class path (the exec plugin resolves it offline, where the
# dependency plugin cannot: it needs artifacts this machine does not have).
# BENCH_NO_BUILD=1 reuses the last build (with BENCH_CLASSES, so that a build running meanwhile in
# this tree cannot change what a JMH fork loads halfway).
if [[ -z "${BENCH_NO_BUILD:-}" ]]; then
  ./mvnw -q -B -o -pl discovery-nic-rdma,discovery-cpu-numa -am test-compile \
    org.codehaus.mojo:exec-maven-plugin:3.6.4:exec -Dexec.executable=echo -Dexec.classpathScope=test \
    -Dexec.args=%classpath -Dexec.outputFile=target/bench.classpath >&2
fi
cpu_cp="${BENCH_CLASSES:+$BENCH_CLASSES:}$(cat discovery-cpu-numa/target/bench.classpath)"
nic_cp="${BENCH_CLASSES:+$BENCH_CLASSES:}$(cat discovery-nic-rdma/target/bench.classpath)"
gcc -O2 -o "$work/floor" bench/floor-reader.c

# strace of one discovery run -> $2.list (files and directories opened), summary "paths opens syscalls failed"
record() { # root list-file java args...
  local root="$1" list="$2"
  shift 2
  strace -f -qq -o "$list.strace" -e trace=%file,openat,readlink java "$@" >/dev/null
  python3 bench/openlog.py "$root/" "$list.strace" "$list"
  rm -f "$list.strace"
}
# median round of the C floor in us; with a second argument (an earlier median), the lower of the two
floor() { # list [earlier-us]
  local us
  read -r us _ _ < <("$work/floor" "$1" "$rounds")
  awk -v a="$us" -v b="${2:-}" 'BEGIN { print (b != "" && b + 0 < a + 0) ? b : a }'
}
# median JMH score (ms) per param value from a JSON result: "<param> <median ms>" lines
jmh_medians() { # json param-name
  python3 - "$1" "$2" <<'PY'
import json, statistics, sys
for b in json.load(open(sys.argv[1])):
    unit = b["primaryMetric"]["scoreUnit"]
    scale = {"ms/op": 1.0, "us/op": 1e-3, "s/op": 1e3}[unit]
    raw = [x for fork in b["primaryMetric"]["rawData"] for x in fork]
    print(b["params"].get(sys.argv[2], "-"), statistics.median(raw) * scale)
PY
}

echo "## in-process discovery against the C floor ($(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo

# Row 3: cpu-numa on the snapshot.
mkdir -p "$work/cpu"
tar -xjf "$corpus/hwloc-linux/$snapshot.tar.bz2" -C "$work/cpu"
cpu_root="$(find "$work/cpu" -mindepth 1 -maxdepth 1 -type d | head -1)"
read -r cpu_paths cpu_opens cpu_calls cpu_failed < <(record "$cpu_root" "$work/cpu.list" \
  -cp "$cpu_cp" io.nodeatlas.discovery.cpu.bench.CpuNumaOnce "$cpu_root")
cpu_floor_before="$(floor "$work/cpu.list")"
java -Djmh.ignoreLock=true -cp "$cpu_cp" org.openjdk.jmh.Main CpuNumaDiscoveryBench -p snapshot="$snapshot" "${jmh_args[@]}" \
  -jvmArgsAppend "-Dnodeatlas.conformance.dir=$corpus" -rf json -rff "$work/cpu.json" >&2
cpu_ms="$(jmh_medians "$work/cpu.json" snapshot | awk '{print $2}')"
cpu_floor_us="$(floor "$work/cpu.list" "$cpu_floor_before")"

# Row 4: nic-rdma, one generated tree per size, read by the recording, the floor and JMH alike.
declare -A nic_ms nic_floor nic_floor_before nic_stats
for p in "${pfs[@]}"; do
  root="$work/trees/pfs$p"
  java -cp "$nic_cp" io.nodeatlas.discovery.net.bench.NicRdmaTreeTool write "$root" "$p"
  nic_stats[$p]="$(record "$root" "$work/nic$p.list" -Xmx2g -cp "$nic_cp" \
    io.nodeatlas.discovery.net.bench.NicRdmaTreeTool discover "$root")"
  nic_floor_before[$p]="$(floor "$work/nic$p.list")"
done
IFS=,; java -Djmh.ignoreLock=true -cp "$nic_cp" org.openjdk.jmh.Main NicRdmaDiscoveryBenchmark -p pfs="${pfs[*]}" "${jmh_args[@]}" \
  -jvmArgsAppend "-Dnodeatlas.bench.trees=$work/trees" -rf json -rff "$work/nic.json" >&2; unset IFS
while read -r p ms; do nic_ms[$p]=$ms; done < <(jmh_medians "$work/nic.json" pfs)
for p in "${pfs[@]}"; do nic_floor[$p]="$(floor "$work/nic$p.list" "${nic_floor_before[$p]}")"; done

echo "| what | in-process (JMH median) | floor (C reader, same files, median) | ratio | files read / opens / fs calls / failed lookups |"
echo "|---|---|---|---|---|"
awk -v ms="$cpu_ms" -v us="$cpu_floor_us" -v s="$snapshot" -v st="$cpu_paths / $cpu_opens / $cpu_calls / $cpu_failed" \
  'BEGIN { printf "| cpu-numa, %s snapshot | %.2f ms | %.2f ms | %.2fx (aim <= 1.5x) | %s |\n", s, ms, us / 1000, ms * 1000 / us, st }'
base="${pfs[0]}"
for p in "${pfs[@]}"; do
  read -r paths opens calls failed <<<"${nic_stats[$p]}"
  awk -v ms="${nic_ms[$p]}" -v us="${nic_floor[$p]}" -v vfs=$((p * 64)) -v st="$paths / $opens / $calls / $failed" \
    'BEGIN { printf "| nic-rdma, %d VFs with RDMA devices | %.1f ms | %.1f ms | %.2fx (aim <= 2x) | %s |\n", vfs, ms, us / 1000, ms * 1000 / us, st }'
done
echo
echo "| VFs | ms per discovery | us per VF | VF ratio | time ratio (aim: 4,096 VFs <= 17x 256) | floor ratio |"
echo "|---|---|---|---|---|---|"
for p in "${pfs[@]}"; do
  awk -v ms="${nic_ms[$p]}" -v b="${nic_ms[$base]}" -v f="${nic_floor[$p]}" -v fb="${nic_floor[$base]}" -v vfs=$((p * 64)) -v bv=$((base * 64)) \
    'BEGIN { printf "| %d | %.1f | %.1f | %.1f | %.2f | %.2f |\n", vfs, ms, ms * 1000 / vfs, vfs / bv, ms / b, f / fb }'
done
