#!/usr/bin/env bash
# The bench table of issue 36: builds once, runs every row script and prints one markdown table (row,
# today, limit measured in the same run, ratio, aim, verdict), the load average and how long the run
# took. A row script prints, besides its own report (kept in the log named at the end), one machine line
# per row: ROW<TAB>what<TAB>today<TAB>limit<TAB>ratio<TAB>aim<TAB>pass|fail (bench/lib.sh's `row`). A
# script that is absent is listed as skipped; one that fails or prints no ROW line is listed with its
# exit status and the tail of its output. Each script also runs alone (and then builds for itself).
#   bench/table.sh            every row, each script with its full number of runs (about 14 minutes on 2 cores)
#   QUICK=1 bench/table.sh    fewer runs (a smoke test of the table, not figures to quote)
# What each row measures, and why the in-process row is thread CPU time in the agent's JVM:
# docs/design/speed-paths.md ("The bench table of issue 36").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
log="${TABLE_LOG:-$(mktemp /tmp/nodeatlas-bench-table.XXXXXX)}"
: >"$log"
start=$SECONDS
quick="${QUICK:-0}"

# Row scripts, in the issue's row order, with their arguments (full run | QUICK run).
scripts=(
  "prepare.sh|2000 100 100|200 20 20"   # Prepare p99 N=32 (tmpfs, disk), N=1; CPU per Prepare+Unprepare
  "agent-memory.sh|3 32 5|1 32 2"       # run idle RSS vs LibraryFloor; 35 s after a 32-claim burst vs idle
  "discover-snapshots.sh|7|2"           # discover --sources cpu-numa vs ColdRead, every snapshot of >= 64 CPUs
  "inprocess-cpu-numa.sh|3|1 100 21"    # in-process cpu-numa vs the checked Java loop
  "version-vs-hello.sh|15|5"            # --version and --help vs a hello JVM
)
# PrepareBenchPath's in-process figures after prepare.sh's (the profile of the agent's own part).
export NODEATLAS_BENCH_PATH_ROUNDS="${NODEATLAS_BENCH_PATH_ROUNDS:-$( ((quick)) && echo 0 || echo 100)}"

echo "building ..." >&2
echo "== build" >>"$log"
bench_build 2>>"$log"
export BENCH_NO_BUILD=1
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"

rows=()
notes=()
for entry in "${scripts[@]}"; do
  IFS='|' read -r script full quickargs <<<"$entry"
  if [[ ! -x "$here/$script" ]]; then
    notes+=("bench/$script: absent, skipped")
    continue
  fi
  args="$full"; ((quick)) && args="$quickargs"
  echo "== bench/$script $args ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" >>"$log"
  echo "running bench/$script $args ..." >&2
  t0=$SECONDS
  set +e
  # shellcheck disable=SC2086
  out="$("$here/$script" $args 2>>"$log")"
  rc=$?
  set -e
  printf '%s\n(%d s)\n' "$out" $((SECONDS - t0)) >>"$log"
  found=0
  while IFS=$'\t' read -r tag what today limit r aim verdict; do
    [[ "$tag" == ROW ]] || continue
    rows+=("| $what | $today | $limit | $r | $aim | $verdict |")
    found=1
  done <<<"$out"
  if ((rc != 0 || !found)); then
    notes+=("bench/$script: exit $rc$( ((found)) || echo ", no ROW line"); last lines: $(tail -3 <<<"$out" | tr '\n' ' ')")
  fi
done

echo "| row | today | limit (same run) | ratio | aim | verdict |"
echo "|---|---|---|---|---|---|"
for r in "${rows[@]}"; do echo "$r"; done
echo
took=$((SECONDS - start))
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$bench_root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(uname -m), $(nproc) cores," \
  "load $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $( ((quick)) && echo "QUICK run, " )took $((took / 60)) min $((took % 60)) s;" \
  "medians of interleaved runs; full reports: $log"
for n in "${notes[@]}"; do echo "- $n"; done
