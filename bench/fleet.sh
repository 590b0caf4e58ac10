#!/usr/bin/env bash
# Issue 33: the fleet view at scale against its floor, measured in the same run.
#   bench/fleet.sh [nodes...]        (default: 1250 2500 5000)
# A generated cluster (FleetBench write, cli test sources): N nodes of 16 devices each (8 exclusive GPUs,
# 4 RDMA NICs, 2 shared CPU pools, 2 shared hugepage pools) and 4 allocated claims per node (20,000 at
# 5,000 nodes), as the API server's list pages of 500 items. The row: `match --cluster` once the pages
# have arrived (FleetBench full: the items read into the fleet, each node's inventory built with what
# the claims hold, one claim of 2 GPUs + a NIC + 16 CPUs on one NUMA node matched on every node) against
# the floor of parsing the same pages alone into Jackson trees (FleetBench floor), in one JVM each, the
# same heap, medians of ROUNDS after WARM rounds in process CPU time (every thread's, collector and compiler
# included, on a nanosecond clock: /proc/self/task/*/schedstat) and wall, with the collectors' pause time of
# a full round beside; the floor is timed before and after (the lower counts).
# Peak memory: the peak RSS of one cold process doing one round of each (/usr/bin/time), and the live heap
# of the fleet (FleetBench live: used heap after a full collection with the fleet read, built and matched).
# Then cold, as a user meets it: one process with the launcher's flags that reads the pages and answers,
# against one that only parses them (process CPU, user + system, and peak RSS; COLD runs, default 3).
# HEAP (default "-Xms1g -Xmx1g"), WARM (10: C2 is still compiling after 5), ROUNDS (11). The HTTP transfer is
# not in either figure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
sizes=("$@")
((${#sizes[@]})) || sizes=(1250 2500 5000)
read -r -a heap <<<"${HEAP:--Xms1g -Xmx1g}"
warm="${WARM:-10}"
rounds="${ROUNDS:-11}"
cold="${COLD:-3}"
launcher_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:CICompilerCount=1 -Xms32m -Xmx512m -Xss256k -XX:-UsePerfData)
work="$(mktemp -d "${TMPDIR:-/tmp}/nodeatlas-fleet.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if [[ -z "${BENCH_NO_BUILD:-}" ]]; then
  # The dependency plugin resolves the reactor's modules from their target/ folders after test-compile
  # (exec:exec cannot run here: -am reaches discovery-gpu, whose exec configuration builds the fake NVML).
  ./mvnw -q -B -o -Djazzer.skip=true -pl cli -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >&2
fi
cp="cli/target/test-classes:cli/target/classes:$(cat cli/target/bench.classpath)"
bench() { java "${heap[@]}" -cp "$cp" io.nodeatlas.cli.fleet.FleetBench "$@"; }

echo "## fleet view against parsing the same JSON ($(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| nodes | devices | claims | JSON MB | floor CPU ms | full CPU ms | ratio (CPU) | floor / full wall ms | full collector pauses ms | full CPU ms per 1,000 nodes | peak RSS floor / full MiB | live heap MiB |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
last_ratio=""
for n in "${sizes[@]}"; do
  d="$work/n$n"
  bench write "$d" "$n"
  mb="$(du -sm "$d" | cut -f1)"
  read -r w1 f1 _ < <(bench floor "$d" "$warm" "$rounds")
  read -r wfull full summary < <(bench full "$d" "$warm" "$rounds")
  read -r w2 f2 _ < <(bench floor "$d" "$warm" "$rounds")
  floor="$(awk -v a="$f1" -v b="$f2" 'BEGIN { print (a < b) ? a : b }')"
  wfloor="$(awk -v a="$w1" -v b="$w2" 'BEGIN { print (a < b) ? a : b }')"
  ratio="$(awk -v a="$full" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')"
  rss_floor="$(/usr/bin/time -f %M java "${heap[@]}" -cp "$cp" io.nodeatlas.cli.fleet.FleetBench floor "$d" 0 1 2>&1 >/dev/null | tail -1)"
  rss_full="$(/usr/bin/time -f %M java "${heap[@]}" -cp "$cp" io.nodeatlas.cli.fleet.FleetBench full "$d" 0 1 2>&1 >/dev/null | tail -1)"
  read -r live _ < <(bench live "$d")
  pauses="$(sed -n 's/.*collector pauses \([0-9]*\) ms.*/\1/p' <<<"$summary")"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s / %s | %s |\n' "$n" "$((n * 16))" "$((n * 4))" "$mb" "$floor" "$full" "$ratio" "$wfloor" "$wfull" \
    "${pauses:-?}" "$(awk -v a="$full" -v n="$n" 'BEGIN { printf "%.0f", a * 1000 / n }')" "$((rss_floor / 1024))" "$((rss_full / 1024))" "$live"
  echo "  ($n nodes: $summary)" >&2
  last_ratio="$ratio"
  last_n="$n"
done
echo
echo "Cold, as the launcher runs a command (its flags: C1 only, serial GC; -Xmx512m for the fleet): one process"
echo "that reads the pages and answers, against one that only parses them; medians of $cold runs, interleaved."
echo
echo "| nodes | floor process CPU ms | fleet process CPU ms | ratio | floor / fleet peak RSS MiB |"
echo "|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  d="$work/n$n"
  fc=(); mc=(); fr=(); mr=()
  for ((i = 0; i < cold; i++)); do
    for m in floor full; do
      t="$(mktemp)"
      /usr/bin/time -f '%U %S %M' -o "$t" java "${launcher_flags[@]}" -cp "$cp" io.nodeatlas.cli.fleet.FleetBench "$m" "$d" 0 1 >/dev/null
      read -r u sy rss <"$t"
      rm -f "$t"
      ms="$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%d", (u + s) * 1000 }')"
      if [[ $m == floor ]]; then fc+=("$ms"); fr+=("$rss"); else mc+=("$ms"); mr+=("$rss"); fi
    done
  done
  f="$(printf '%s\n' "${fc[@]}" | median)"
  m="$(printf '%s\n' "${mc[@]}" | median)"
  cold_ratio="$(awk -v a="$m" -v b="$f" 'BEGIN { printf "%.2f", a / b }')"
  printf '| %s | %s | %s | %s | %s / %s |\n' "$n" "$f" "$m" "$cold_ratio" "$(($(printf '%s\n' "${fr[@]}" | median | cut -d. -f1) / 1024))" \
    "$(($(printf '%s\n' "${mr[@]}" | median | cut -d. -f1) / 1024))"
done
echo
echo "Each figure is a median of $rounds rounds after $warm warm-up rounds in one JVM ($(IFS=' '; echo "${heap[*]}")); CPU is the process's (collector and compiler included, nanosecond clock), the steadier figure on a shared machine; the floor's lower median of a run before and after. FleetBench thread DIR ROUNDS gives the main thread's own CPU and allocation by phase."
row "fleet match in one warm JVM, $last_n nodes, vs parsing the JSON" "$last_ratio" 1 "$last_ratio" "3" "$(awk -v r="$last_ratio" 'BEGIN { print (r <= 3) ? 1 : 0 }')"
row "fleet match as a cold process, ${sizes[-1]} nodes, vs parsing the JSON" "$cold_ratio" 1 "$cold_ratio" "3" "$(awk -v r="$cold_ratio" 'BEGIN { print (r <= 3) ? 1 : 0 }')"
