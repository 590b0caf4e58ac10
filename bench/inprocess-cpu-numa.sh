#!/usr/bin/env bash
# Issue 36's row "in-process cpu-numa": cpu-numa discovery in a warmed-up JVM (CpuNumaOnce) against the
# checked Java loop (JavaReadFloor checked: the same files, an lstat before each open, a non-following
# open, no parsing), both reading the files one discovery opened on the snapshot (default 256ppc-8n8s4t,
# recorded with strace), with the C reader (bench/floor-reader.c) beside them. Aim: <= 1.3x the checked
# Java loop.
#   bench/inprocess-cpu-numa.sh [runs, default 3] [warm-up rounds, default 400] [measured rounds, default 101]
# What it measures (docs/design/speed-paths.md, "The two tables"): the CPU time of the discovering thread,
# median of the measured rounds after the warm-up, in the agent's JVM: the java on the PATH (the JDK the
# agent runs on) with the agent's flags (systemd/nodeatlas.env's NODEATLAS_JAVA_OPTS: the C1-only JIT,
# the serial collector), since an agent is what re-discovers for its whole life. Java and the loop run in
# separate JVMs, alternately, R times; medians. Beside the row, for the explanation, the same figures with
# the JVM's default flags (C2, G1), the whole process's CPU (JIT and GC threads included), wall time, and
# "cold": a JVM's first five discoveries, without warm-up (the JIT still compiling).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
runs="${1:-3}"
warm="${2:-400}"
rounds="${3:-101}"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$bench_root/../shared/conformance}"
snapshot="${SNAPSHOT:-256ppc-8n8s4t}"
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi
read -r -a agent_flags <<<"$NODEATLAS_JAVA_OPTS"
bench_build
cp="$(bench_classpath discovery-cpu-numa)"
bench_dir="$([[ -d /dev/shm && -w /dev/shm ]] && echo /dev/shm || echo "${TMPDIR:-/tmp}")"
work="$(mktemp -d "$bench_dir/nodeatlas-inprocess-cpu.XXXXXX")"
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/floor" bench/floor-reader.c
mkdir -p "$work/tree"
tar --no-same-owner -xjf "$corpus/hwloc-linux/$snapshot.tar.bz2" -C "$work/tree"
root="$(find "$work/tree" -mindepth 1 -maxdepth 1 -type d | head -1)"
strace -f -qq -o "$work/cpu.strace" -e trace=%file,openat,readlink java -cp "$cp" io.nodeatlas.discovery.cpu.bench.CpuNumaOnce "$root" >/dev/null
read -r paths _ < <(python3 bench/openlog.py "$root/" "$work/cpu.strace" "$work/cpu.list")

once() { # flags-name [warm-up rounds] [rounds] -> "<wall> <thread> <process>" of CpuNumaOnce
  local -n f="$1"
  java "${f[@]}" -cp "$cp" io.nodeatlas.discovery.cpu.bench.CpuNumaOnce "$root" "${2:-$warm}" "${3:-$rounds}"
}
loop() { # flags-name mode
  local -n f="$1"
  java "${f[@]}" -cp "$cp" io.nodeatlas.discovery.host.bench.JavaReadFloor "$2" "$work/cpu.list" "$warm" "$rounds"
}
default_flags=()
for k in agent default; do : >"$work/$k.once"; : >"$work/$k.checked"; : >"$work/$k.plain"; : >"$work/$k.cold"; done
: >"$work/c"
for ((i = 0; i < runs; i++)); do
  for k in agent default; do
    once "${k}_flags" >>"$work/$k.once"
    once "${k}_flags" 0 5 >>"$work/$k.cold" # a JVM's first five discoveries: the JIT still at work
    loop "${k}_flags" checked >>"$work/$k.checked"
    loop "${k}_flags" plain >>"$work/$k.plain"
  done
  "$work/floor" "$work/cpu.list" "$rounds" | awk '{print $4}' >>"$work/c"
done
col() { awk -v c="$2" '{print $c}' "$work/$1" | median; } # file, column (1 wall, 2 thread, 3 process) -> median us
c_cpu=$(median <"$work/c")
printf 'in-process cpu-numa, %s (%d paths), %d runs of %d rounds after %d warm-up, load %s; microseconds per discovery\n' \
  "$snapshot" "$paths" "$runs" "$rounds" "$warm" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-40s %9s %9s %9s | %s\n' "JVM / what" wall thread process "thread / checked loop, process / C reader"
for k in agent default; do
  label=$([[ $k == agent ]] && echo "agent flags (C1, serial GC)" || echo "JVM defaults (C2, G1)")
  for w in once cold checked plain; do
    printf '  %-40s %9.1f %9.1f %9.1f | %5.2fx %5.2fx\n' "$label, $w" "$(col "$k.$w" 1)" "$(col "$k.$w" 2)" "$(col "$k.$w" 3)" \
      "$(ratio "$(col "$k.$w" 2)" "$(col "$k.checked" 2)")" "$(ratio "$(col "$k.$w" 3)" "$c_cpu")"
  done
done
printf '  %-40s %9s %9.1f %9s\n' "C reader (floor-reader.c), CPU" "" "$c_cpu" ""
t=$(col agent.once 2); f=$(col agent.checked 2); r=$(ratio "$t" "$f")
row "in-process cpu-numa, $snapshot (thread CPU, agent's JVM, warmed up)" "$t us" "checked Java loop $f us (C reader $c_cpu us)" \
  "${r}x" "<= 1.3x the checked loop" "$(le "$r" 1.3)"
