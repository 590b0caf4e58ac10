#!/usr/bin/env bash
# Issue 14, rows 3 and 4: in-process discovery against its floor, measured in the same run.
#   row 3: cpu-numa on the 256-CPU hwloc snapshot (256ppc-8n8s4t), JMH (CpuNumaDiscoveryBench);
#   row 4: nic-rdma on generated nodes of 4, 16 and 64 PFs x 64 VFs, each VF with its RDMA device
#          (256, 1,024 and 4,096 VFs), JMH (NicRdmaDiscoveryBenchmark), with the growth curve.
# The floor is bench/floor-reader.c (built here by gcc): it opens, reads and closes exactly the files,
# and lists exactly the directories, that one discovery run opened on the same tree, recorded from
# that run with strace. Beside it, JavaReadFloor (discovery-api's bench package) reads the same list
# with the JDK's calls alone, plain and with the type check before each open: what a bare Java reader
# pays, so that each aim can be set against the floor a Java reader cannot go below. Every figure is a median (JMH iterations; runs; floor rounds), in wall and
# in CPU time (see the note the script prints). Prints markdown rows.
#   bench/inprocess.sh [pfs...]        (default: 4 16 64)
# Needs: gcc, strace, python3, tar, bzip2; the shared corpus (NODEATLAS_CONFORMANCE_DIR, default
# ../shared/conformance). JMH iterations: JMH_ARGS (default "-f 1 -wi 3 -w 2 -i 5 -r 2"). The trees go
# to BENCH_DIR (default /dev/shm when it exists: 4,096 VFs are 400,000 files, slow to delete on disk).
# Other JMH runs on a shared machine hold /tmp/jmh.lock: ours ignore it (-Djmh.ignoreLock=true).
# NIC_HEAP (default "-Xms2g -Xmx2g -Xmn1g"): the heap of every nic-rdma JVM, JMH forks included (a
# -jvmArgsAppend here replaces the benchmark's own). Fixed sizes, the same for every node: with the
# JVM's defaults the heap starts at 1/64 of RAM and G1 sizes the young generation per fork from that
# fork's allocation rate, so each size ran under a different collector setting. 1 GiB of young
# generation holds two 4,096-VF discoveries' garbage (~480 MB each), so even the largest node collects
# about once per two runs, copying only what one run keeps alive (~25 MB).
# BENCH_CLASSES: class folders put before the modules' own (to measure other compiled code, e.g. a
# base commit's target/classes saved aside, with this script and benches).
# The floor is timed before and after the JMH runs (load on a shared machine drifts); the lower
# median counts, so a ratio never looks better than it is.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
here="$bench_root"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$here/../shared/conformance}"
snapshot="${SNAPSHOT:-256ppc-8n8s4t}"
pfs=("$@")
((${#pfs[@]})) || pfs=(4 16 64)
jmh_args=(${JMH_ARGS:--f 1 -wi 3 -w 2 -i 5 -r 2})
rounds="${FLOOR_ROUNDS:-21}"
read -r -a nic_heap <<<"${NIC_HEAP:--Xms2g -Xmx2g -Xmn1g}"
cd "$here"

bench_dir="${BENCH_DIR:-$([[ -d /dev/shm && -w /dev/shm ]] && echo /dev/shm || echo "${TMPDIR:-/tmp}")}"
work="$(mktemp -d "$bench_dir/nodeatlas-inprocess.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Build, and write each module's test class path (bench/lib.sh bench_build: the exec plugin's
# %classpath would also feed its arguments to discovery-cpu-numa's own exec of the cpuset hook).
# BENCH_NO_BUILD=1 reuses the last build (with BENCH_CLASSES, so that a build running meanwhile in
# this tree cannot change what a JMH fork loads halfway).
bench_build
cpu_cp="${BENCH_CLASSES:+$BENCH_CLASSES:}$(bench_classpath discovery-cpu-numa)"
nic_cp="${BENCH_CLASSES:+$BENCH_CLASSES:}$(bench_classpath discovery-nic-rdma)"
gcc -O2 -o "$work/floor" bench/floor-reader.c

# strace of one discovery run -> $2.list (files and directories opened), summary "paths opens syscalls failed"
record() { # root list-file java args...
  local root="$1" list="$2"
  shift 2
  strace -f -qq -o "$list.strace" -e trace=%file,openat,readlink java "$@" >/dev/null
  python3 bench/openlog.py "$root/" "$list.strace" "$list"
  rm -f "$list.strace"
}
# the C floor's median round: "<wall us> <cpu us>"; with an earlier "<wall> <cpu>", the lower of each
floor() { # list [earlier]
  local wall cpu
  read -r wall _ _ cpu < <("$work/floor" "$1" "$rounds")
  awk -v w="$wall" -v c="$cpu" -v e="${2:-}" 'BEGIN { split(e, p, " ");
    if (e != "" && p[1] + 0 < w + 0) w = p[1]; if (e != "" && p[2] + 0 < c + 0) c = p[2]; print w, c }'
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
# --no-same-owner: ours, read by path as a live host's root-owned /sys is (see discover-vs-lstopo.sh).
tar --no-same-owner -xjf "$corpus/hwloc-linux/$snapshot.tar.bz2" -C "$work/cpu"
cpu_root="$(find "$work/cpu" -mindepth 1 -maxdepth 1 -type d | head -1)"
read -r cpu_paths cpu_opens cpu_calls cpu_failed < <(record "$cpu_root" "$work/cpu.list" \
  -cp "$cpu_cp" io.nodeatlas.discovery.cpu.bench.CpuNumaOnce "$cpu_root")
cpu_floor="$(floor "$work/cpu.list")"
cpu_time="$(java -cp "$cpu_cp" io.nodeatlas.discovery.cpu.bench.CpuNumaOnce "$cpu_root" 400 101)"
java -Djmh.ignoreLock=true -cp "$cpu_cp" org.openjdk.jmh.Main CpuNumaDiscoveryBench -p snapshot="$snapshot" "${jmh_args[@]}" \
  -jvmArgsAppend "-Dnodeatlas.conformance.dir=$corpus" -rf json -rff "$work/cpu.json" >&2
cpu_ms="$(jmh_medians "$work/cpu.json" snapshot | awk '{print $2}')"
cpu_floor="$(floor "$work/cpu.list" "$cpu_floor")"
# The Java floor (JavaReadFloor): the same files through the JDK's calls alone, without and with the
# type check before each open that a Java 17 reader of an untrusted tree cannot do without. It is one of
# discovery-api's test classes, which are on both modules' class paths: $cpu_cp serves the nic lists too.
java_floor() { # mode list warm-up rounds [jvm flags...] -> "<wall us> <thread us> <cpu us>"
  local mode="$1" list="$2" warm="$3" n="$4"
  shift 4
  java "$@" -cp "$cpu_cp" io.nodeatlas.discovery.host.bench.JavaReadFloor "$mode" "$list" "$warm" "$n"
}
cpu_plain="$(java_floor plain "$work/cpu.list" 400 101)"
cpu_checked="$(java_floor checked "$work/cpu.list" 400 101)"

# Row 4: nic-rdma, one generated tree per size, read by the recording, the floor and JMH alike.
declare -A nic_ms nic_floor nic_stats nic_time
for p in "${pfs[@]}"; do
  root="$work/trees/pfs$p"
  java -cp "$nic_cp" io.nodeatlas.discovery.net.bench.NicRdmaTreeTool write "$root" "$p"
  nic_stats[$p]="$(record "$root" "$work/nic$p.list" "${nic_heap[@]}" -cp "$nic_cp" \
    io.nodeatlas.discovery.net.bench.NicRdmaTreeTool discover "$root")"
  nic_floor[$p]="$(floor "$work/nic$p.list")"
  # Warm-up until the JIT is done at every size (an agent re-discovers for its whole life): 12 runs at
  # 4,096 VFs, where 3 left C2 compiling in the measured runs (5-9% of their CPU), and 120 at 256.
  nic_time[$p]="$(java "${nic_heap[@]}" -cp "$nic_cp" io.nodeatlas.discovery.net.bench.NicRdmaTreeTool time "$root" $((p >= 40 ? 12 : 480 / p)) 7)"
done
nic_jvm="${nic_heap[*]} -Dnodeatlas.bench.trees=$work/trees" # joined with spaces, before IFS=, below
IFS=,; java -Djmh.ignoreLock=true -cp "$nic_cp" org.openjdk.jmh.Main NicRdmaDiscoveryBenchmark -p pfs="${pfs[*]}" "${jmh_args[@]}" \
  -jvmArgsAppend "$nic_jvm" -rf json -rff "$work/nic.json" >&2; unset IFS
while read -r p ms; do nic_ms[$p]=$ms; done < <(jmh_medians "$work/nic.json" pfs)
for p in "${pfs[@]}"; do nic_floor[$p]="$(floor "$work/nic$p.list" "${nic_floor[$p]}")"; done
last="${pfs[${#pfs[@]} - 1]}"
nic_plain="$(java_floor plain "$work/nic$last.list" 12 7 "${nic_heap[@]}")"
nic_checked="$(java_floor checked "$work/nic$last.list" 12 7 "${nic_heap[@]}")"

# A table line: what, JMH ms, "<wall us> <cpu us>" in-process (own loop), "<wall us> <cpu us>" floor, file stats
md_row() {
  awk -v what="$1" -v jmh="$2" -v t="$3" -v f="$4" -v st="$5" -v aim="$6" 'BEGIN { split(t, a, " "); split(f, b, " ");
    printf "| %s | %.2f ms | %.2f ms | %.2fx | %.2f ms (thread %.2f) | %.2f ms | %.2fx (aim <= %s) | %s |\n",
      what, jmh, b[1] / 1000, jmh * 1000 / b[1], a[3] / 1000, a[2] / 1000, b[2] / 1000, a[3] / b[2], aim, st }'
}
echo "Wall time is what JMH measures, but on a shared machine it mostly measures the neighbours; CPU time is the"
echo "ratio that holds still: in-process CPU is the whole process's (GC and JIT threads included) mean per run after"
echo "warm-up, the discovering thread's median beside it; the floor's is its median round. Floors: the lower median"
echo "of the C reader before and after the JMH runs."
echo
echo "| what | JMH wall (median) | floor wall | wall ratio | in-process CPU | floor CPU | CPU ratio | files read / opens / fs calls / failed lookups |"
echo "|---|---|---|---|---|---|---|---|"
md_row "cpu-numa, $snapshot snapshot" "$cpu_ms" "$cpu_time" "$cpu_floor" "$cpu_paths / $cpu_opens / $cpu_calls / $cpu_failed" 1.5
base="${pfs[0]}"
for p in "${pfs[@]}"; do
  read -r paths opens calls failed <<<"${nic_stats[$p]}"
  md_row "nic-rdma, $((p * 64)) VFs with RDMA devices" "${nic_ms[$p]}" "${nic_time[$p]}" "${nic_floor[$p]}" "$paths / $opens / $calls / $failed" 2
done
echo
echo "| VFs | JMH ms per discovery | CPU ms per discovery | CPU us per VF | VF ratio | JMH time ratio | CPU time ratio (aim: 4,096 VFs <= 17x 256) | floor CPU ratio |"
echo "|---|---|---|---|---|---|---|---|"
for p in "${pfs[@]}"; do
  awk -v ms="${nic_ms[$p]}" -v b="${nic_ms[$base]}" -v t="${nic_time[$p]}" -v tb="${nic_time[$base]}" \
    -v f="${nic_floor[$p]}" -v fb="${nic_floor[$base]}" -v vfs=$((p * 64)) -v bv=$((base * 64)) \
    'BEGIN { split(t, a, " "); split(tb, ab, " "); split(f, c, " "); split(fb, cb, " ");
      printf "| %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n", vfs, ms, a[3] / 1000, a[3] / vfs, vfs / bv, ms / b, a[3] / ab[3], c[2] / cb[2] }'
done

# What a bare Java reader of the same files costs, against the same C floor: rows 3 and 4's aims
# (1.5x and 2x) set against what the JDK's calls alone take, with and without the check before each open.
echo
echo "| tree | C floor CPU | Java, plain (open, read, close) | ratio | Java, checked (lstat, then open without following) | ratio | nodeatlas | ratio |"
echo "|---|---|---|---|---|---|---|---|"
floor_row() { # what, C floor "<wall> <cpu>", plain, checked, nodeatlas: "<wall> <thread> <cpu>"
  awk -v what="$1" -v f="$2" -v p="$3" -v c="$4" -v t="$5" 'BEGIN { split(f, b, " "); split(p, x, " "); split(c, y, " "); split(t, z, " ");
    printf "| %s | %.2f ms | %.2f ms | %.2fx | %.2f ms | %.2fx | %.2f ms | %.2fx |\n", what, b[2] / 1000, x[3] / 1000, x[3] / b[2],
      y[3] / 1000, y[3] / b[2], z[3] / 1000, z[3] / b[2] }'
}
floor_row "cpu-numa, $snapshot" "$cpu_floor" "$cpu_plain" "$cpu_checked" "$cpu_time"
floor_row "nic-rdma, $((last * 64)) VFs" "${nic_floor[$last]}" "$nic_plain" "$nic_checked" "${nic_time[$last]}"

# The machine lines of bench/table.sh (lib.sh's `row`): rows 3 and 4 by CPU time against the floor, and the
# VF curve by CPU time of the largest tree against the smallest.
cpu_row() { # what, "<wall us> <thread us> <cpu us>" in-process, "<wall us> <cpu us>" floor, aim
  local r
  r="$(awk -v t="$2" -v f="$3" 'BEGIN { split(t, a, " "); split(f, b, " "); printf "%.2f", a[3] / b[2] }')"
  row "$1" "$(awk -v t="$2" 'BEGIN { split(t, a, " "); printf "%.2f ms CPU", a[3] / 1000 }')" \
    "$(awk -v f="$3" 'BEGIN { split(f, b, " "); printf "C reader %.2f ms CPU", b[2] / 1000 }')" "${r}x" "<= ${4}x" "$(le "$r" "$4")"
}
cpu_row "in-process cpu-numa, $snapshot" "$cpu_time" "$cpu_floor" 1.5
cpu_row "in-process nic-rdma, $((last * 64)) VFs" "${nic_time[$last]}" "${nic_floor[$last]}" 2
# The same aims applied to the bare Java reader with the check (JavaReadFloor checked): where it fails,
# the aim is below what any Java 17 reader that keeps FIFOs out can reach on this machine.
cpu_row "beside 3: bare Java reader with the type check, cpu-numa files" "$cpu_checked" "$cpu_floor" 1.5
cpu_row "beside 4: bare Java reader with the type check, $((last * 64))-VF files" "$nic_checked" "${nic_floor[$last]}" 2
curve="$(awk -v t="${nic_time[$last]}" -v tb="${nic_time[$base]}" 'BEGIN { split(t, a, " "); split(tb, b, " "); printf "%.2f", a[3] / b[3] }')"
# Linear: the issue's 17x for 16x the VFs, scaled to the sizes run.
curve_aim="$(awk -v r=$((last / base)) 'BEGIN { printf "%.2f", r * 17 / 16 }')"
row "VF curve, $((base * 64)) -> $((last * 64)) VFs ($((last / base))x the VFs)" "${curve}x the CPU time" \
  "$((last / base))x the VFs" "${curve}x" "<= ${curve_aim}x (linear)" "$(le "$curve" "$curve_aim")"
