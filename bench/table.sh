#!/usr/bin/env bash
# The bench table of issue 14: runs every row script present and prints one markdown table (row, today,
# limit, ratio, aim, pass/fail). A row script prints, besides its own report (kept in the log named at
# the end), one machine line per row: ROW<TAB>what<TAB>today<TAB>limit<TAB>ratio<TAB>aim<TAB>pass|fail
# (bench/lib.sh's `row`). A script that is absent is listed as skipped; one that fails or prints no
# ROW line is listed with its exit status and the tail of its output.
#   bench/table.sh            every row, each script with its default number of runs
#   QUICK=1 bench/table.sh    fewer runs (a smoke test of the table, not figures to quote)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log="${TABLE_LOG:-$(mktemp /tmp/nodeatlas-bench-table.XXXXXX)}"
: >"$log"

# Row scripts, in the issue's row order, with their arguments (full run / QUICK run).
scripts=(
  "discover-vs-lstopo.sh|15|5"   # 1: discover --sources cpu-numa vs lstopo
  "version-vs-hello.sh|15|5"     # 2: --version vs a hello JVM
  "inprocess.sh||"               # 3-4: in-process discovery and VF scaling vs a C reader (wt-scan)
  "prepare.sh||"                 # 5: Prepare latency vs gRPC round trip + file writes (wt-prepare)
  "agent-memory.sh|3|1 16 2"     # 6: agent RSS idle / loaded vs a hello JVM
  "live-sysfs.sh||200"           # beside 3: HostFs on this host's own sysfs vs a C reader
)

rows=()
notes=()
for entry in "${scripts[@]}"; do
  IFS='|' read -r script full quick <<<"$entry"
  if [[ ! -x "$here/$script" ]]; then
    notes+=("bench/$script: absent, skipped")
    continue
  fi
  args="$full"; [[ "${QUICK:-0}" == 1 ]] && args="$quick"
  echo "== bench/$script $args" >>"$log"
  echo "running bench/$script $args ..." >&2
  set +e
  # shellcheck disable=SC2086
  out="$("$here/$script" $args 2>>"$log")"
  rc=$?
  set -e
  printf '%s\n' "$out" >>"$log"
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
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); medians; full reports: $log"
for n in "${notes[@]}"; do echo "- $n"; done
