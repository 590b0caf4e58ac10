#!/usr/bin/env bash
# On a GPU node, as root: is a CDI device usable in a container? In a private mount namespace, a root
# holding only glibc and a shell (the image: nothing of the driver), the OCI runtime's default mounts
# (/proc, /sys, /dev/null and friends), and, unless the third argument is "none", SPEC's edits for DEVICE
# applied as a runtime applies them (device nodes and read-only bind mounts). Then nvidia-smi and
# gpu-app (.ci/e2e/fixtures/gpu-app.c: dlopen libcuda.so.1 and libnvidia-ml.so.1, cuInit, nvmlInit_v2)
# run in it with chroot, and print what they see.
#   .gpu-node/container.sh SPEC DEVICE [none]
set -eu
spec=$1 dev=$2 mode=${3:-cdi}
pack="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root=$(mktemp -d /tmp/gpu-node-root.XXXXXX)
trap 'rm -rf "$root" "$root.edits"' EXIT
python3 - "$spec" "$dev" > "$root.edits" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
dev = [d for d in spec["devices"] if d["name"] == sys.argv[2]][0]["containerEdits"]
for ed in (spec.get("containerEdits") or {}, dev):
    for n in ed.get("deviceNodes") or []:
        print("dev", n.get("hostPath", n["path"]), n["path"])
    for m in ed.get("mounts") or []:
        print("mnt", m["hostPath"], m["containerPath"])
    for e in ed.get("env") or []:
        print("env", e, "-")
PY
unshare --mount --propagation private bash -eu -s "$root" "$mode" "$pack" <<'IN'
root=$1 mode=$2 pack=$3
mount -t tmpfs tmpfs "$root"
mkdir -p "$root"/usr/lib/x86_64-linux-gnu "$root"/usr/bin "$root"/usr/lib64 "$root"/proc "$root"/sys "$root"/dev "$root"/app "$root"/tmp
ln -s usr/lib "$root/lib"; ln -s usr/bin "$root/bin"; ln -s usr/lib64 "$root/lib64"
# The image's glibc and shell, as any distribution image has them (the driver's libraries need libm,
# libpthread, libdl and librt; a wrapper script needs /bin/sh).
for f in $( { ldd "$pack/gpu-app"; ldd /bin/sh; } | grep -o '/[^ ]*' | sort -u) /bin/sh; do cp -L "$f" "$root$f"; done
for l in libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1; do cp -L "/lib/x86_64-linux-gnu/$l" "$root/usr/lib/x86_64-linux-gnu/$l"; done
cp "$pack/gpu-app" "$root/app/gpu-app"
mount -t proc proc "$root/proc"; mount --rbind /sys "$root/sys"
for d in null zero full random urandom tty; do touch "$root/dev/$d"; mount --bind "/dev/$d" "$root/dev/$d"; done
envs=(); chroot=$(command -v chroot)
if [ "$mode" != none ]; then
  while read -r kind a b; do
    case $kind in
      dev|mnt) mkdir -p "$(dirname "$root$b")"; [ -e "$root$b" ] || touch "$root$b"; mount --bind "$a" "$root$b"
               if [ "$kind" = mnt ]; then mount -o remount,bind,ro "$root$b"; fi ;;
      env) envs+=("$a") ;;
    esac
  done < "$root.edits"
fi
echo "--- $mode: $(grep -c '^mnt' "$root.edits") mounts and $(grep -c '^dev' "$root.edits") device nodes in the spec"
env -i PATH=/usr/bin:/bin "${envs[@]}" "$chroot" "$root" /usr/bin/nvidia-smi -L || echo "nvidia-smi: exit $?"
env -i PATH=/usr/bin:/bin "${envs[@]}" "$chroot" "$root" /app/gpu-app && echo "gpu-app: ok" || echo "gpu-app: exit $?"
IN
