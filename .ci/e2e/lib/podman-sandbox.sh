# Sourced by the podman end-to-end scripts: the one private podman set-up they share. Not run by
# .ci/run itself (it runs .ci/e2e/*.sh only).
#
#   e2e_require TOOL...           fail unless root and every tool is installed
#   e2e_sandbox NAME APPLET... -- DIR...
#                                 a scratch dir $W (removed on exit, with every mount under it), podman
#                                 $P with its state there (runc, cgroupfs, no journald, nofile within
#                                 root's limit: crun cannot run here), a busybox rootfs with APPLETs
#                                 imported as $image, and $W/etc-cdi, $W/cdi and each $W/DIR created.
#                                 A script may define e2e_cleanup_extra to undo more on exit, and
#                                 e2e_rootfs_extra ROOTFS to add files to the image before it is imported.
#   podman_in DIR PODMAN-ARGS...  podman with DIR as /var/run/cdi and an empty /etc/cdi, bind-mounted in a
#                                 private mount namespace: the host's own CDI dirs are never read or written
#                                 (podman 4.3.1 only reads those two paths).

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "  ok: $*"; }

e2e_require() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install podman runc busybox-static jq)"
  done
  [[ $(id -u) == 0 ]] || fail "needs root (podman with runc, device nodes, bind mounts)"
}

e2e_cleanup() {
  set +e
  "${P[@]}" rm -a -f >/dev/null 2>&1
  "${P[@]}" rmi -a -f >/dev/null 2>&1
  grep -o " $W/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m"; done
  if declare -F e2e_cleanup_extra >/dev/null; then e2e_cleanup_extra; fi
  rm -rf "$W"
  local d
  for d in "${created_dirs[@]}"; do rmdir "$d" 2>/dev/null; done
}

e2e_sandbox() {
  local name=$1; shift
  local applets=()
  while [[ $# -gt 0 && $1 != -- ]]; do applets+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  W=$(mktemp -d "/tmp/nodeatlas-$name-e2e.XXXXXX")
  created_dirs=()
  local d
  for d in /etc/cdi /var/run/cdi; do
    # Mount points for the private bind mounts; created empty only when missing and removed again.
    if [[ ! -d $d ]]; then mkdir -p "$d"; created_dirs+=("$d"); fi
  done
  export CONTAINERS_CONF=$W/containers.conf
  P=(podman --root "$W/storage" --runroot "$W/runroot" --tmpdir "$W/tmp")
  trap e2e_cleanup EXIT
  cat > "$CONTAINERS_CONF" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "none"
CONF
  mkdir -p "$W/rootfs/bin" "$W/rootfs/dev" "$W/rootfs/proc" "$W/rootfs/sys" "$W/rootfs/etc" "$W/rootfs/tmp" \
    "$W/etc-cdi" "$W/cdi"
  for d in "$@"; do mkdir -p "$W/$d"; done
  cp "$(command -v busybox)" "$W/rootfs/bin/busybox"
  local a
  for a in "${applets[@]}"; do ln -s busybox "$W/rootfs/bin/$a"; done
  if declare -F e2e_rootfs_extra >/dev/null; then e2e_rootfs_extra "$W/rootfs"; fi
  tar -C "$W/rootfs" -cf "$W/rootfs.tar" .
  image=localhost/nodeatlas-$name-e2e:latest
  "${P[@]}" import -q "$W/rootfs.tar" "$image" >/dev/null
}

podman_in() {
  local dir=$1; shift
  unshare -m --propagation private -- sh -c 'mount --bind "$1" /etc/cdi && mount --bind "$2" /var/run/cdi && shift 2 && exec "$@"' \
    sh "$W/etc-cdi" "$dir" "${P[@]}" "$@"
}
