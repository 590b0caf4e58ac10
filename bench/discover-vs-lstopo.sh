#!/usr/bin/env bash
# Row 1 of the bench table (issue 14): a whole `nodeatlas discover --sources cpu-numa` process against
# `lstopo-no-graphics` on the largest hwloc snapshot (256ppc-8n8s4t, 256 CPUs), in the same run: the two
# are run alternately, so both see the same load on a shared machine; prints medians, the ratio and the
# median peak RSS, then the ROW line of bench/lib.sh. Aim: <= 4x lstopo's wall time, peak RSS < 64 MiB.
#   bench/discover-vs-lstopo.sh [runs, default 15]
# Needs lstopo-no-graphics (Debian: hwloc) and /usr/bin/time (Debian: time); installs them with apt-get
# when missing and run as root.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
corpus="${NODEATLAS_CONFORMANCE_DIR:-$bench_root/../shared/conformance}/hwloc-linux"
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
# --no-same-owner: the tree is ours, as a live host's /sys is root's, so nodeatlas reads it by path as it
# reads a live host (a tree that another user owns, as tar run by root would leave it, is read through
# directory handles instead: see HostFs).
tar --no-same-owner -xjf "$corpus/$snapshot.tar.bz2" -C "$work"
snap_root="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)"

# Build (if needed) and warm the launcher once. The start-up cache holds what its recording run loaded
# and spun, so one left by another command (the end-to-end fixture host, a first --version's discover
# of this machine) lacks this snapshot's paths and costs every run here about 40 ms: it is dropped, and
# this command's first run records it, as a user's first discover of a host does.
rm -f "$bench_root"/cli/target/nodeatlas-*.aot "$bench_root"/cli/target/nodeatlas-*.jsa "$bench_root"/cli/target/nodeatlas-*.none
"$launcher" discover --sources cpu-numa --host-root "$snap_root" >/dev/null

na=("$launcher" discover --sources cpu-numa --host-root "$snap_root")
ls=(env HWLOC_COMPONENTS=linux,stop HWLOC_FSROOT="$snap_root" lstopo-no-graphics --of xml -)

# Sanity: both tools see the same machine.
echo "nodeatlas cores: $("${na[@]}" --format json 2>/dev/null | grep -c '"package"' || true)  lstopo cores: $("${ls[@]}" | grep -c 'type="Core"')"

: >"$work/na" ; : >"$work/ls"
for ((i = 0; i < runs; i++)); do
  wall_cpu "${na[@]}" >>"$work/na"
  wall_cpu "${ls[@]}" >>"$work/ls"
done
na_ms=$(awk '{print $1}' "$work/na" | median | awk '{printf "%.1f", $1 / 1000}')
ls_ms=$(awk '{print $1}' "$work/ls" | median | awk '{printf "%.1f", $1 / 1000}')
na_cpu=$(awk '{print $2}' "$work/na" | median)
ls_cpu=$(awk '{print $2}' "$work/ls" | median)
for ((i = 0; i < 5; i++)); do peak_rss_kib "${na[@]}"; done >"$work/na_rss"
for ((i = 0; i < 5; i++)); do peak_rss_kib "${ls[@]}"; done >"$work/ls_rss"
na_mib=$(median <"$work/na_rss" | awk '{printf "%.1f", $1 / 1024}')
ls_mib=$(median <"$work/ls_rss" | awk '{printf "%.1f", $1 / 1024}')
r=$(ratio "$na_ms" "$ls_ms")

printf 'snapshot %s, %d alternating runs each (peak RSS: median of 5), on %s (%s cores)\n' "$snapshot" "$runs" "$(uname -m)" "$(nproc)"
printf '  nodeatlas discover --sources cpu-numa: median %8.1f ms   peak RSS %6.1f MiB\n' "$na_ms" "$na_mib"
printf '  lstopo-no-graphics --of xml:           median %8.1f ms   peak RSS %6.1f MiB\n' "$ls_ms" "$ls_mib"
printf '  ratio nodeatlas / lstopo wall time:    %.2fx (aim <= 4x); nodeatlas RSS aim < 64 MiB\n' "$r"
printf '  CPU time (user + system), medians:     nodeatlas %s ms, lstopo %s ms\n' "$na_cpu" "$ls_cpu"
row "discover --sources cpu-numa, 256 CPUs" "$na_ms ms ($na_cpu ms CPU), $na_mib MiB" "lstopo $ls_ms ms ($ls_cpu ms CPU)" "${r}x" "<= 4x, < 64 MiB" \
  "$(( $(le "$r" 4) && $(le "$na_mib" 63.99) ))"
