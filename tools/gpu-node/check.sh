#!/usr/bin/env bash
# On a GPU node, from the repository's root (examples/ and deploy/ are read): nodeatlas against the real
# NVML, with what the driver and nvidia-smi say beside it. Prints a log, and keeps it and the documents
# under OUT (default ./gpu-node-out): log.txt and x.tgz.
#   .gpu-node/check.sh [OUT]
set -u
pack="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-${OUT:-./gpu-node-out}}"
mkdir -p "$out"
J="$pack/jre/bin/java"
X="$out/x"; mkdir -p "$X"
na() { "$J" -jar "$pack/nodeatlas.jar" "$@"; }
sec() { echo; echo "===== $*"; }
{
sec host; uname -a; nproc; head -3 /etc/os-release
sec nvidia-smi; nvidia-smi; nvidia-smi -L
nvidia-smi -q > "$X/nvidia-smi-q.txt" 2>&1
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,memory.total,driver_version,vbios_version,serial,compute_cap,mig.mode.current --format=csv
nvidia-smi topo -m 2>&1 | head -12
sec driver; cat /proc/driver/nvidia/version 2>&1; ls -la /dev/nvidia* 2>&1
for b in /sys/bus/pci/drivers/nvidia/0000:*; do echo "$b numa_node=$(cat "$b/numa_node") -> $(readlink -f "$b")"; done
ldconfig -p | grep -E 'libnvidia-ml|libcuda\.' ; ls -la /lib /bin /usr/bin/nvidia-smi 2>&1
sec "discover --sources gpu"; time na discover --sources gpu -o json > "$X/discover-gpu.json"; cat "$X/discover-gpu.json"
sec "discover, every source"; na discover -o tree --color=never 2>&1; na discover -o json > "$X/discover-all.json" 2>/dev/null
sec "cdi generate"; na cdi generate --sources gpu --output-dir "$X/cdi" 2>&1
grep -o '"hostPath" : "[^"]*"' "$X/cdi"/*.json | sort -u | while read -r _ _ p; do
  p=${p//\"/}; if [[ -e $p ]]; then echo "ok $p -> $(readlink -f "$p")"; else echo "MISSING $p"; fi
done
sec "cdi validate, list"; na cdi validate "$X/cdi" 2>&1; na cdi list --spec-dir "$X/cdi" 2>&1
sec slices; na slices --sources gpu > "$X/slices.yaml" 2>&1; cat "$X/slices.yaml"
for c in examples/gpu/*.yaml; do sec "match $c"; na match --sources gpu -f deploy/deviceclasses.yaml -f "$c" --explain 2>&1 | sed -n '/^ResourceClaim/,$p'; done
sec "health check (the agent's, 5 polls)"; "$J" -cp "$pack/nodeatlas.jar:$pack/probe" HealthProbe 2>&1
sec "MIG profiles through nodeatlas's binding (read only)"; "$J" -cp "$pack/nodeatlas.jar:$pack/probe" MigProbe 2>&1
sec "discover --sources gpu, 5 runs"; TIMEFORMAT='%R s wall %U s user %S s sys'
for _ in 1 2 3 4 5; do time na discover --sources gpu -o json >/dev/null 2>&1; done
} 2>&1 | tee "$out/log.txt"
tar -C "$out" -czf "$out/x.tgz" x && rm -rf "$X"
