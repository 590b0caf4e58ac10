#!/usr/bin/env bash
# End-to-end: nodeatlas.service as an operator meets it.
#   1. `systemd-analyze verify` accepts the unit install.sh installs;
#   2. install.sh refuses a Java older than 17 and says which it found;
#   3. on a Debian booted with systemd as init (mmdebstrap minbase, run by podman in a private store;
#      this host's JDK mounted read-only as /usr/bin/java), install.sh installs and starts the unit: it
#      gets active (READY=1 after the first discovery), /run/cdi and the kubelet's plugin directories
#      (0750) exist and the static CDI specs of the fixture host are in /var/run/cdi. Then the container
#      restarts, which is a reboot for the unit (/run is a fresh tmpfs; /var/lib stays): it is active
#      again, and /run/cdi and the specs are back.
# Needs root, podman, runc, busybox-static, jq, mmdebstrap, systemd (systemd-analyze), a JDK and the
# build (./mvnw -B -pl cli -am package). Idempotent; leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
jar=$repo/cli/target/nodeatlas.jar
start=$(date +%s)

source .ci/e2e/lib/podman-sandbox.sh
e2e_require podman runc jq busybox mmdebstrap systemd-analyze java gcc
[[ -f $jar ]] || fail "$jar is missing: ./mvnw -B -pl cli -am package first"
e2e_sandbox systemd sh -- dest src

# --- 1. systemd-analyze verify --------------------------------------------------------------------------
echo "==> systemd-analyze verify"
DESTDIR=$W/dest systemd/install.sh "$jar" >/dev/null
unit=$W/dest/etc/systemd/system/nodeatlas.service
systemd-analyze verify "$unit" >"$W/verify.out" 2>&1 || fail "systemd-analyze verify: $(cat "$W/verify.out")"
if grep -q . "$W/verify.out"; then cat "$W/verify.out" >&2; fail "systemd-analyze verify warns about the unit"; fi
pass "systemd-analyze verify accepts the installed unit"

# --- 2. the Java check ----------------------------------------------------------------------------------
printf '#!/bin/sh\necho "    java.specification.version = 11" >&2\n' >"$W/java11"
chmod +x "$W/java11"
if out=$(JAVA=$W/java11 DESTDIR=$W/dest2 systemd/install.sh "$jar" 2>&1); then fail "install.sh accepted Java 11"; fi
[[ $out == *"is Java 11; nodeatlas needs Java 17 or newer"* ]] || fail "install.sh on Java 11 said: $out"
[[ ! -e $W/dest2 ]] || fail "install.sh installed files before refusing Java 11"
pass "install.sh refuses Java 11: $out"

# --- 3. a boot, and a reboot ----------------------------------------------------------------------------
echo "==> a Debian with systemd (mmdebstrap minbase)"
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
t0=$(date +%s)
mmdebstrap --quiet --variant=minbase --include=systemd,systemd-sysv \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  "$suite" "$W/debian.tar" "${NODEATLAS_DEBIAN_MIRROR:-http://deb.debian.org/debian}" </dev/null
"${P[@]}" import -q "$W/debian.tar" localhost/nodeatlas-systemd-e2e:latest >/dev/null
echo "  built in $(( $(date +%s) - t0 )) s"
cp -r systemd "$W/src/"
cp "$jar" "$W/src/nodeatlas.jar"
cp -r .ci/e2e/fixtures/hostroot "$W/src/hostroot"
gcc -std=c11 -O2 -static -o "$W/src/cpuset-hook" discovery-cpu-numa/src/main/c/nodeatlas-cpuset-hook.c
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
mounts=(-v "$W/src:/src:ro" -v "$java_home:$java_home:ro")
# Debian's JDK links its configuration from /etc.
for d in /etc/java-*; do [[ -d $d ]] && mounts+=(-v "$d:$d:ro"); done
# CAP_SYS_ADMIN lets systemd build the unit's sandbox (ProtectSystem=strict and the rest): without it
# systemd skips the namespace set-up in a container and the unit would run unsandboxed here.
"${P[@]}" run -d --name booted --network none --systemd=always --cap-add=SYS_ADMIN "${mounts[@]}" \
  localhost/nodeatlas-systemd-e2e:latest /sbin/init >/dev/null
in_os() { "${P[@]}" exec booted "$@"; }
wait_active() { # WHAT
  local state=
  for _ in $(seq 120); do
    state=$(in_os systemctl is-active nodeatlas.service 2>/dev/null || true)
    [[ $state == active || $state == failed ]] && break
    sleep 0.5
  done
  if [[ $state != active ]]; then
    in_os journalctl -u nodeatlas.service --no-pager -n 30 >&2 || true
    fail "$1: nodeatlas.service is ${state:-not started}"
  fi
}
for _ in $(seq 60); do
  [[ $(in_os systemctl is-system-running 2>/dev/null || true) =~ ^(running|degraded)$ ]] && break
  sleep 0.5
done
in_os ln -s "$java_home/bin/java" /usr/bin/java
in_os sh -c 'NODEATLAS_HOOK=/src/cpuset-hook /src/systemd/install.sh /src/nodeatlas.jar' >"$W/install.out" 2>&1 \
  || { cat "$W/install.out" >&2; fail "install.sh failed on the booted system"; }
wait_active "after install.sh"
# Discover the fixture host, whose devices have static CDI specs, as an operator configures it.
in_os sh -c 'printf "NODEATLAS_SYSFS_ROOT=/src/hostroot/sys\nNODEATLAS_PROCFS_ROOT=/src/hostroot/proc\n" >>/etc/default/nodeatlas'
in_os systemctl restart nodeatlas.service
wait_active "after the restart with the fixture host"

check_dirs() { # WHEN
  local specs=
  for _ in $(seq 60); do
    specs=$(in_os sh -c 'ls /var/run/cdi 2>/dev/null' || true)
    [[ -n $specs ]] && break
    sleep 0.5
  done
  [[ -n $specs ]] || fail "$1: no CDI spec in /var/run/cdi"
  for d in /var/lib/kubelet/plugins_registry /var/lib/kubelet/plugins/nodeatlas.io; do
    [[ $(in_os stat -c %a "$d" 2>/dev/null) == 750 ]] || fail "$1: $d is missing or not 0750"
  done
  local pid
  pid=$(in_os systemctl show -p MainPID --value nodeatlas.service)
  in_os grep -q ' / / ro,' "/proc/$pid/mountinfo" || fail "$1: the agent's root is not read-only (no sandbox)"
  pass "$1: active, sandboxed; /var/run/cdi holds $(tr '\n' ' ' <<<"$specs"); kubelet plugin directories exist (0750)"
}
check_dirs "first boot"
in_os touch /run/nodeatlas-e2e-marker
"${P[@]}" restart -t 60 booted >/dev/null
in_os sh -c 'test ! -e /run/nodeatlas-e2e-marker' || fail "/run survived the reboot"
wait_active "after the reboot"
check_dirs "after the reboot"

# --- 4. the MPS drop-in ---------------------------------------------------------------------------------
# An MPS daemon's start (MpsShm's privileged plan): unshare --mount, then a bind mount of its shm directory at
# /dev/shm. An ExecStartPost= runs in the unit's sandbox, so a probe there says whether the agent could.
echo "==> the MPS drop-in"
cat >"$W/src/zz-e2e-probe.conf" <<'PROBE'
[Service]
ExecStartPost=-/usr/bin/unshare --mount --propagation private -- sh -c 'mount --bind -- "$$1" /dev/shm && shift && exec "$$@"' probe /var/lib/nodeatlas/e2e-shm sh -c 'echo bound > /dev/shm/probe'
PROBE
in_os mkdir -p /var/lib/nodeatlas/e2e-shm
in_os install -D -m 0644 /src/zz-e2e-probe.conf /etc/systemd/system/nodeatlas.service.d/zz-e2e-probe.conf
mps_probe() { # EXPECT WHEN
  in_os rm -f /var/lib/nodeatlas/e2e-shm/probe
  in_os systemctl daemon-reload
  in_os systemctl restart nodeatlas.service
  wait_active "$2"
  local got=absent
  in_os test -e /var/lib/nodeatlas/e2e-shm/probe && got=present
  [[ $got == "$1" ]] || fail "$2: the daemon's /dev/shm bind mount is $got in the unit's sandbox, expected $1"
}
mps_probe absent "the shipped unit"
pass "the shipped unit's sandbox refuses an MPS daemon's mount namespace"
in_os install -D -m 0644 /src/systemd/nodeatlas-mps.conf /etc/systemd/system/nodeatlas.service.d/mps.conf
mps_probe present "with systemd/nodeatlas-mps.conf"
in_os sh -c 'test "$(cat /var/lib/nodeatlas/e2e-shm/probe)" = bound' || fail "the probe wrote elsewhere"
in_os test ! -e /dev/shm/probe || fail "the bind mount leaked out of the probe's mount namespace"
pid=$(in_os systemctl show -p MainPID --value nodeatlas.service)
in_os grep -q ' / / ro,' "/proc/$pid/mountinfo" || fail "with the MPS drop-in: the agent's root is not read-only"
pass "with systemd/nodeatlas-mps.conf the unit may make an MPS daemon's mount namespace, still sandboxed"
in_os rm -rf /etc/systemd/system/nodeatlas.service.d /var/lib/nodeatlas/e2e-shm
echo "systemd e2e passed in $(( $(date +%s) - start )) s"
