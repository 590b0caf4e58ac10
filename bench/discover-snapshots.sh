#!/usr/bin/env bash
# Issue 36's row "`discover --sources cpu-numa`, whole process": the launcher's whole process against the
# Java floor (bench/ColdRead.java) on EVERY hwloc conformance snapshot of at least MIN_CPUS (default 64)
# CPUs, in the same run: per snapshot the two commands run alternately, so both see the same load;
# medians of R runs, then one ROW line per snapshot (bench/lib.sh). Aim: <= 1.3x ColdRead, wall time.
# ColdRead is a whole JVM with the launcher's java, flags and kind of start-up cache (recorded for it the
# same way) that reads the files this discover opens on that snapshot (recorded with strace), with the
# type check before each open, and prints them as JSON; nothing else.
#   bench/discover-snapshots.sh [runs per snapshot, default 9]
# SNAPSHOTS="256ppc-8n8s4t 128ia64-17n4s2c" picks snapshots by name instead. BASELINE=path/to/nodeatlas
# (an older checkout's launcher, built) adds its runs, interleaved with the others, for an A/B in one run.
# Needs /usr/bin/time and strace.
# The launcher's start-up cache holds what its recording run loaded, so it is recorded afresh for each
# snapshot by a first discover of it, as a user's first discover of a host records it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$bench_root/../shared/conformance}/hwloc-linux"
runs="${1:-9}"
min_cpus="${MIN_CPUS:-64}"
[[ -x /usr/bin/time ]] && command -v strace >/dev/null || { echo "install: time strace" >&2; exit 1; }
bench_build
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -n "${SNAPSHOTS:-}" ]]; then
  read -r -a snaps <<<"$SNAPSHOTS"
else
  snaps=()
  for f in "$corpus"/*.tar.bz2; do
    n=$(tar -tjf "$f" 2>/dev/null | grep -cE 'sys/devices/system/cpu/cpu[0-9]+/$' || true)
    ((n >= min_cpus)) && snaps+=("$(basename "$f" .tar.bz2)")
  done
fi
((${#snaps[@]})) || { echo "bench: no snapshot of >= $min_cpus CPUs in $corpus" >&2; exit 1; }

# ColdRead, compiled once with the launcher's JDK.
"$launcher" --version >/dev/null
launcher_command --version
java_bin="${cmd[0]}"
jdk_bin="$(dirname "$(readlink -f "$(command -v "$java_bin")")")"
mkdir -p "$work/cold"
"$jdk_bin/javac" --release 17 -d "$work/cold" "$bench_root/bench/ColdRead.java"
"$jdk_bin/jar" cf "$work/cold.jar" -C "$work/cold" .

printf 'discover --sources cpu-numa (whole launcher) against ColdRead, %d alternating runs each, %s (%s cores), load %s\n' \
  "$runs" "$(uname -m)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-34s %5s %6s | %22s | %22s | %6s\n' snapshot CPUs paths "discover ms (CPU ms)" "ColdRead ms (CPU ms)" ratio
for snap in "${snaps[@]}"; do
  dir="$work/$snap"
  mkdir -p "$dir"
  # --no-same-owner: the tree is ours, as a live host's /sys is root's, so it is read by path as a live
  # host is (a tree of another user's is read through directory handles instead: see HostFs).
  tar --no-same-owner -xjf "$corpus/$snap.tar.bz2" -C "$dir"
  root="$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -1)"
  cpus=$(find "$root/sys/devices/system/cpu" -maxdepth 1 -name 'cpu[0-9]*' | wc -l)
  rm -f "$bench_root"/cli/target/nodeatlas-*.aot "$bench_root"/cli/target/nodeatlas-*.jsa "$bench_root"/cli/target/nodeatlas-*.none
  "$launcher" discover --sources cpu-numa --host-root "$root" >/dev/null # records the start-up cache
  if [[ -n "${BASELINE:-}" ]]; then
    rm -f "${BASELINE%/*}"/cli/target/nodeatlas-*.aot "${BASELINE%/*}"/cli/target/nodeatlas-*.jsa "${BASELINE%/*}"/cli/target/nodeatlas-*.none
    "$BASELINE" discover --sources cpu-numa --host-root "$root" >"$dir/base.json"
    "$launcher" discover --sources cpu-numa --host-root "$root" | cmp -s - "$dir/base.json" ||
      { echo "bench: $BASELINE prints other output on $snap" >&2; exit 1; }
    : >"$dir/base.t"
  fi
  na=("$launcher" discover --sources cpu-numa --host-root "$root")
  launcher_command discover --sources cpu-numa --host-root "$root"
  strace -f -qq -o "$dir/na.strace" -e trace=%file,openat,readlink "${cmd[@]}" >/dev/null
  read -r paths _ < <(python3 "$bench_root/bench/openlog.py" "$root/" "$dir/na.strace" "$dir/na.list")
  coldread_floor "$dir" "$dir/na.list" "$work/cold.jar"
  : >"$dir/na.t"; : >"$dir/floor.t"
  for ((i = 0; i < runs; i++)); do
    wall_cpu "${na[@]}" >>"$dir/na.t"
    wall_cpu "${floor[@]}" >>"$dir/floor.t"
    [[ -z "${BASELINE:-}" ]] || wall_cpu "$BASELINE" discover --sources cpu-numa --host-root "$root" >>"$dir/base.t"
  done
  na_ms=$(awk '{print $1}' "$dir/na.t" | median | awk '{printf "%.1f", $1 / 1000}')
  na_cpu=$(awk '{print $2}' "$dir/na.t" | median)
  fl_ms=$(awk '{print $1}' "$dir/floor.t" | median | awk '{printf "%.1f", $1 / 1000}')
  fl_cpu=$(awk '{print $2}' "$dir/floor.t" | median)
  r=$(ratio "$na_ms" "$fl_ms")
  printf '  %-34s %5d %6d | %12s (%6s) | %12s (%6s) | %5sx\n' "$snap" "$cpus" "$paths" "$na_ms" "$na_cpu" "$fl_ms" "$fl_cpu" "$r"
  if [[ -n "${BASELINE:-}" ]]; then
    b_ms=$(awk '{print $1}' "$dir/base.t" | median | awk '{printf "%.1f", $1 / 1000}')
    printf '  %-34s %5s %6s | %12s (%6s) | %22s | %5sx  (baseline %s)\n' "" "" "" "$b_ms" "$(awk '{print $2}' "$dir/base.t" | median)" \
      "" "$(ratio "$b_ms" "$fl_ms")" "$BASELINE"
  fi
  row "discover --sources cpu-numa, $snap ($cpus CPUs)" "$na_ms ms ($na_cpu ms CPU)" "ColdRead $fl_ms ms ($fl_cpu ms CPU, $paths paths, cache: $cache)" \
    "${r}x" "<= 1.3x ColdRead" "$(le "$r" 1.3)"
  rm -rf "$dir"
done
# Leave no snapshot's start-up cache behind: the next command records its own.
rm -f "$bench_root"/cli/target/nodeatlas-*.aot "$bench_root"/cli/target/nodeatlas-*.jsa "$bench_root"/cli/target/nodeatlas-*.none
[[ -z "${BASELINE:-}" ]] ||
  rm -f "${BASELINE%/*}"/cli/target/nodeatlas-*.aot "${BASELINE%/*}"/cli/target/nodeatlas-*.jsa "${BASELINE%/*}"/cli/target/nodeatlas-*.none
