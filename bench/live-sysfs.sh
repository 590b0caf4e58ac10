#!/usr/bin/env bash
# HostFs on this machine's own sysfs against the C floor: the files of /sys/devices/system/cpu and
# /sys/devices/system/node (what cpu-numa reads on a live host), read through HostFs with / as the
# host root (as the agent and `discover` read them) and by bench/floor-reader.c (open, read to EOF,
# close). In sysfs and procfs HostFs opens a value file without the lstat it makes first elsewhere
# (no FIFO can be there: discovery-api KernelMounts), so this is the ratio an agent pays per host file.
#   bench/live-sysfs.sh [rounds, default 2000]
# BENCH_CLASSES=dir1:dir2 puts other class directories first (an older discovery-api, for before/after).
# Prints the in-process CPU per round (thread and process, medians/means from CpuTimedRuns) and the
# floor's, and the ratio; the snapshot rows of bench/inprocess.sh do not take this path (a plain tree
# can hold a FIFO).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
rounds="${1:-2000}"
[[ -d /sys/devices/system/cpu ]] || { echo "no /sys/devices/system/cpu here" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -z "${BENCH_NO_BUILD:-}" ]]; then
  ./mvnw -q -B -o -pl discovery-api test-compile \
    org.codehaus.mojo:exec-maven-plugin:3.6.4:exec -Dexec.executable=echo -Dexec.classpathScope=test \
    -Dexec.args=%classpath -Dexec.outputFile=target/bench.classpath >&2
fi
cp="${BENCH_CLASSES:+$BENCH_CLASSES:}$(cat discovery-api/target/bench.classpath)"
gcc -O2 -o "$work/floor" bench/floor-reader.c
# Directories, and the files we may read (write-only attributes such as microcode/reload left out).
find /sys/devices/system/cpu /sys/devices/system/node -maxdepth 3 \
  \( -type d -printf 'D %p\n' \) -o \( -type f -perm -u=r ! -name uevent -printf 'F %p\n' \) 2>/dev/null \
  | head -20000 >"$work/list"
files=$(grep -c '^F ' "$work/list" || true)
dirs=$(grep -c '^D ' "$work/list" || true)
read -r _ _ _ floor_cpu < <("$work/floor" "$work/list" "$rounds")
read -r wall thread process < <(java -cp "$cp" io.nodeatlas.discovery.host.bench.ListRead "$work/list" $((rounds / 4)) "$rounds")
read -r _ _ _ floor_cpu2 < <("$work/floor" "$work/list" "$rounds")
floor_cpu=$(awk -v a="$floor_cpu" -v b="$floor_cpu2" 'BEGIN {print (a < b) ? a : b}')
printf '%d files and %d directories of /sys/devices/system/{cpu,node}, %d rounds (load %s)\n' "$files" "$dirs" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  HostFs: thread CPU %.1f us per round (%.2f us per file), process %.1f us, wall %.1f us\n' \
  "$thread" "$(awk -v t="$thread" -v n="$files" 'BEGIN {print t / n}')" "$process" "$wall"
printf '  C floor: CPU %.1f us per round (%.2f us per file)\n' "$floor_cpu" "$(awk -v t="$floor_cpu" -v n="$files" 'BEGIN {print t / n}')"
r=$(ratio "$thread" "$floor_cpu")
row "HostFs on this host's sysfs (cpu, node), $files files" "$(awk -v t="$thread" 'BEGIN {printf "%.1f us CPU", t}')" \
  "C reader $(awk -v t="$floor_cpu" 'BEGIN {printf "%.1f us CPU", t}')" "${r}x" "<= 1.5x" "$(le "$r" 1.5)"
