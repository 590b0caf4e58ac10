#!/usr/bin/env bash
# Issue 36's row "`--version` and `--help`, whole launcher": `nodeatlas --version` and `nodeatlas --help`
# against a JVM that prints hello, started with the same java binary and the same JVM flags as the
# launcher's and the same kind of start-up cache (the launcher's AOT cache or CDS archive of its top
# jar; the hello JVM's of its own jar, bench/lib.sh hello_cached), the three run alternately in the
# same run; medians of N runs (wall time, CPU beside it), then one ROW line each (bench/lib.sh). Aim:
# <= 1.3x the hello JVM.
#   bench/version-vs-hello.sh [runs, default 15]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs="${1:-15}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bench_build
"$launcher" --version >/dev/null # records the start-up caches when needed
"$launcher" --help >/dev/null
launcher_command --version
jvm_flags_of
hello_cached "$work/hello" "${cmd[0]}" "${flags[@]}"
[[ "$("${hello[@]}")" == hello ]]

: >"$work/version"; : >"$work/help"; : >"$work/hello.t"
for ((i = 0; i < runs; i++)); do
  wall_cpu "$launcher" --version >>"$work/version"
  wall_cpu "${hello[@]}" >>"$work/hello.t"
  wall_cpu "$launcher" --help >>"$work/help"
done
ms() { awk '{print $1}' "$work/$1" | median | awk '{printf "%.1f", $1 / 1000}'; }
cpu() { awk '{print $2}' "$work/$1" | median; }
he_ms=$(ms hello.t); he_cpu=$(cpu hello.t)
printf '%d alternating runs each, java %s, load %s\n' "$runs" "${cmd[0]}" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  hello JVM, same flags and kind of cache (%s):\n' "$(printf '%s\n' "${hello[@]}" | grep -E '^-XX:(AOTCache|SharedArchiveFile)=' | sed 's/=.*//' || echo none)"
printf '                          median %7.1f ms (%s ms CPU)\n' "$he_ms" "$he_cpu"
for what in version help; do
  na_ms=$(ms "$what"); na_cpu=$(cpu "$what"); r=$(ratio "$na_ms" "$he_ms")
  printf '  nodeatlas --%-8s    median %7.1f ms (%s ms CPU), %sx hello\n' "$what" "$na_ms" "$na_cpu" "$r"
  row "nodeatlas --$what, whole launcher" "$na_ms ms ($na_cpu ms CPU)" "hello JVM $he_ms ms ($he_cpu ms CPU)" "${r}x" "<= 1.3x hello" "$(le "$r" 1.3)"
done
