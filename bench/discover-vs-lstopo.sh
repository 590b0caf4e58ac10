#!/usr/bin/env bash
# Times a whole `nodeatlas discover --sources cpu-numa` process against `lstopo` on the largest hwloc
# snapshot (256ppc-8n8s4t, 256 CPUs) and on this machine, in the same run; prints medians, the ratio
# and peak RSS. Aims (foundation issue): nodeatlas <= 4x lstopo's wall time and < 64 MiB peak RSS.
#   bench/discover-vs-lstopo.sh [runs]
# Needs lstopo-no-graphics (Debian: hwloc) and /usr/bin/time (Debian: time); installs them with apt-get
# when missing and run as root. Uses hyperfine when present, else a bash loop with date +%s%N.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$here/../shared/conformance}/hwloc-linux"
snapshot="${SNAPSHOT:-256ppc-8n8s4t}"
runs="${1:-15}"

need=()
command -v lstopo-no-graphics >/dev/null || need+=(hwloc)
[[ -x /usr/bin/time ]] || need+=(time)
if ((${#need[@]})); then
  if [[ $(id -u) == 0 ]]; then apt-get install -y "${need[@]}" >/dev/null; else echo "install: ${need[*]}" >&2; exit 1; fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -xjf "$corpus/$snapshot.tar.bz2" -C "$work"
snap_root="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)"
mkdir -p "$work/empty"

# Build (if needed) and warm the launcher once: its first run also records the class-data archive.
"$here/nodeatlas" discover --sources cpu-numa --host-root "$snap_root" >/dev/null

na=("$here/nodeatlas" discover --sources cpu-numa --host-root "$snap_root")
ls=(env HWLOC_COMPONENTS=linux,stop HWLOC_FSROOT="$snap_root" lstopo-no-graphics --of xml -)

# Sanity: both tools see the same machine.
echo "nodeatlas cores: $("${na[@]}" --format json 2>/dev/null | grep -c '"package"' || true)  lstopo cores: $("${ls[@]}" | grep -c 'type="Core"')"

median_ms() { # command... -> median wall ms of $runs runs (bash loop)
  local t=() i s e
  for ((i = 0; i < runs; i++)); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N)
    t+=($(((e - s) / 1000)))
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/h.json" \
    -n nodeatlas "$(printf '%q ' "${na[@]}")" -n lstopo "$(printf '%q ' "${ls[@]}")" >&2 || true
  read -r na_ms ls_ms < <(python3 -c "import json,sys; r=json.load(open('$work/h.json'))['results']; print(*(x['median']*1000 for x in r))")
else
  na_ms=$(median_ms "${na[@]}")
  ls_ms=$(median_ms "${ls[@]}")
fi

rss_kib() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}'; }
na_rss=$(rss_kib "${na[@]}")
ls_rss=$(rss_kib "${ls[@]}")

printf 'snapshot %s, %d runs each, on %s (%s cores)\n' "$snapshot" "$runs" "$(uname -m)" "$(nproc)"
printf '  nodeatlas discover --sources cpu-numa: median %8.1f ms   peak RSS %6.1f MiB\n' "$na_ms" "$(echo "$na_rss/1024" | bc -l)"
printf '  lstopo-no-graphics --of xml:           median %8.1f ms   peak RSS %6.1f MiB\n' "$ls_ms" "$(echo "$ls_rss/1024" | bc -l)"
printf '  ratio nodeatlas / lstopo wall time:    %.2fx (aim <= 4x); nodeatlas RSS aim < 64 MiB\n' "$(echo "$na_ms/$ls_ms" | bc -l)"
