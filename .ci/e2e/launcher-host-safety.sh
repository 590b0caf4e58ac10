#!/usr/bin/env bash
# End-to-end: the launcher never writes outside its own build and cache directories. A JDK 25 probe
# once turned the machine's /dev/null into a regular file (the JVM's AOT record mode unlinks its
# output path and writes there). From a copy of this checkout, as root, inside a private mount
# namespace whose /dev, /tmp and $HOME are fresh tmpfs trees of the test's own (the host's are never
# touched), this checks what a user would see:
#   - Ctrl-C during the first build says "build interrupted", leaves no jar behind, and the next run
#     builds again (from clean: an interrupted compiler may leave half-written classes);
#   - the first `discover` builds with one progress line per module, then runs;
#   - the first discover after a build records the start-up cache (JDK 25+: AOT, JDK 17: CDS) and
#     changes nothing outside cli/target/: not the copy's other files, not /dev, /tmp or $HOME;
#   - /dev/null is still the character device 1:3 after every step.
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/${0##*/}"
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "  ok: $*"; }

# The listing of a tree, one entry a line: path, type, size, modification time and mode of a file;
# path and mode of a directory (whose time changes when a target/ in it comes or goes).
listing() {
  find "$1" -mindepth 1 \( -type d -printf '%P d %m\n' \) -o -printf '%P %y %s %T@ %m\n' 2>/dev/null |
    LC_ALL=C sort
}
null_is_device() { [[ "$(stat -c '%F %t:%T' /dev/null)" == "character special file 1:3" ]]; }

if [[ "${1:-}" == --inside ]]; then
  # Runs in the private mount namespace: fresh /dev, /tmp and $HOME, then the step named by $2.
  shift
  step=$1 repo=$2 out=$3
  shift 3
  mount -t tmpfs -o mode=755,size=16m nodeatlas-e2e-dev /dev
  mknod -m 666 /dev/null c 1 3
  mknod -m 666 /dev/zero c 1 5
  mknod -m 666 /dev/full c 1 7
  mknod -m 666 /dev/random c 1 8
  mknod -m 666 /dev/urandom c 1 9
  ln -s /proc/self/fd /dev/fd
  ln -s /proc/self/fd/0 /dev/stdin
  ln -s /proc/self/fd/1 /dev/stdout
  ln -s /proc/self/fd/2 /dev/stderr
  mkdir /dev/shm
  mount -t tmpfs -o mode=1777,size=256m nodeatlas-e2e-tmp /tmp
  if [[ "$step" == discover-* ]]; then
    # Maven needs the real ~/.m2 to build; a discover needs no home of its own.
    mkdir -p "$out/home"
    mount -t tmpfs -o mode=700,size=16m nodeatlas-e2e-home "$out/home"
    export HOME="$out/home"
  fi
  listing /dev >"$out/dev.before"
  listing /tmp >"$out/tmp.before"
  [[ "$step" == discover-* ]] && listing "$HOME" >"$out/home.before"
  cd "$repo"
  fixture=.ci/e2e/fixtures/hostroot
  case "$step" in
    interrupt)
      # Job control: the launcher gets its own process group that receives the SIGINT a terminal's
      # Ctrl-C would send, and a background job does not ignore it.
      set -m
      ./nodeatlas discover --host-root "$fixture" >"$out/stdout" 2>"$out/stderr" &
      pid=$!
      # Interrupted while Maven builds the last module, the one that writes the jars.
      for ((i = 0; i < 6000; i++)); do
        grep -Eq '^nodeatlas: \[([0-9]+)/\1\]' "$out/stderr" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -INT -- "-$pid" 2>/dev/null || true
      set +e
      wait "$pid"
      echo $? >"$out/status"
      set -e
      ;;
    build | discover-*)
      set +e
      ./nodeatlas discover --host-root "$fixture" --sources all >"$out/stdout" 2>"$out/stderr"
      echo $? >"$out/status"
      set -e
      ;;
  esac
  null_is_device || echo "/dev/null: $(stat -c '%F %t:%T %s' /dev/null)" >"$out/null.broken"
  listing /dev >"$out/dev.after"
  listing /tmp >"$out/tmp.after"
  [[ "$step" == discover-* ]] && listing "$HOME" >"$out/home.after"
  exit 0
fi

[[ $(id -u) == 0 ]] || fail "needs root (a private mount namespace with its own /dev)"
command -v unshare >/dev/null || fail "unshare is not installed (util-linux)"
null_is_device || fail "this machine's /dev/null is already not the device 1:3: $(stat -c '%F %s' /dev/null)"

# The JDKs to try: the newest 25+ and a 17 under /usr/lib/jvm (Debian's and Temurin's packages).
major_of() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null; }
jdk25="" jdk17=""
for home in /usr/lib/jvm/*/; do
  home="${home%/}"
  [[ -L "$home" || ! -x "$home/bin/java" ]] && continue
  m="$(major_of "$home")"
  [[ -n "$m" ]] || continue
  if ((m >= 25)) && [[ -z "$jdk25" || "$(major_of "$jdk25")" -lt "$m" ]]; then jdk25="$home"; fi
  if ((m == 17)); then jdk17="$home"; fi
done
[[ -n "$jdk25" ]] || fail "no JDK 25+ under /usr/lib/jvm: this check is about the JDK 25 AOT cache"

work="$(mktemp -d /var/tmp/nodeatlas-launcher-e2e.XXXXXX)"
cleanup() {
  [[ "${NODEATLAS_E2E_KEEP:-0}" == 1 ]] && { echo "kept $work" >&2; return; }
  { grep -o " $work/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m"; done
  rm -rf "$work"
}
trap cleanup EXIT
# A copy of the checkout as it is (tracked and untracked files git does not ignore), without builds.
repo="$work/repo"
mkdir -p "$repo"
git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$repo"
[[ -x "$repo/nodeatlas" && ! -e "$repo/cli/target" ]] || fail "could not copy the checkout to $repo"

# Runs a step in its own mount namespace and checks what every step must leave as it was.
run_step() {
  local step=$1 out="$work/$1"
  mkdir -p "$out"
  unshare -m --propagation private bash "$self" --inside "$step" "$repo" "$out"
  [[ ! -e "$out/null.broken" ]] || fail "$step: /dev/null is no longer the device: $(cat "$out/null.broken")"
  cmp -s "$out/dev.before" "$out/dev.after" || fail "$step changed /dev: $(diff "$out/dev.before" "$out/dev.after" | head -5)"
  cmp -s "$out/tmp.before" "$out/tmp.after" || fail "$step wrote to /tmp: $(diff "$out/tmp.before" "$out/tmp.after" | head -5)"
  if [[ -f "$out/home.before" ]]; then
    cmp -s "$out/home.before" "$out/home.after" || fail "$step wrote to \$HOME: $(diff "$out/home.before" "$out/home.after" | head -5)"
  fi
}

echo "--- Ctrl-C during the first build"
run_step interrupt
status="$(cat "$work/interrupt/status")"
grep -q 'build interrupted' "$work/interrupt/stderr" || fail "no 'build interrupted' on Ctrl-C: $(tail -3 "$work/interrupt/stderr")"
! grep -q 'build failed' "$work/interrupt/stderr" || fail "Ctrl-C reported as a failed build"
[[ "$status" == 130 ]] || fail "an interrupted build exits $status, want 130"
for j in nodeatlas.jar nodeatlas-discover.jar nodeatlas-top.jar; do
  [[ ! -e "$repo/cli/target/$j" ]] || fail "an interrupted build left cli/target/$j for a later run"
done
pass "Ctrl-C said 'build interrupted', exit 130, no jar left"

echo "--- the first discover builds, with progress"
listing "$repo" | grep -Ev '^([^/ ]+/)?target[/ ]' >"$work/repo.before"
run_step build
[[ "$(cat "$work/build/status")" == 0 ]] || fail "the first discover failed: $(tail -5 "$work/build/stderr")"
jq -e '.devices | length > 0' "$work/build/stdout" >/dev/null || fail "the first discover printed no devices"
steps="$(grep -Ec '^nodeatlas: \[[0-9]+/[0-9]+\]' "$work/build/stderr" || true)"
total="$(sed -En 's|^nodeatlas: \[[0-9]+/([0-9]+)\].*|\1|p' "$work/build/stderr" | tail -1)"
[[ -n "$total" && "$steps" == "$total" ]] || fail "want one progress line per module, got $steps of ${total:-?}: $(head -5 "$work/build/stderr")"
grep -q 'build interrupted' "$work/build/stderr" && fail "the build after Ctrl-C repeated the interruption message"
listing "$repo" | grep -Ev '^([^/ ]+/)?target[/ ]' >"$work/repo.after"
cmp -s "$work/repo.before" "$work/repo.after" || fail "the build changed files outside target/: $(diff "$work/repo.before" "$work/repo.after" | head -5)"
pass "built with $steps progress lines, then discovered; /dev/null, /dev and /tmp untouched"

# The first discover after a build records the cache: on the JDK the launcher picks by itself (the
# newest 25+ when the java on the PATH is older), on JDK 25 named by JAVA, and on JDK 17.
check_first_discover() {
  local name=$1 kind=$2
  rm -f "$repo"/cli/target/nodeatlas-*.{aot,jsa,none}
  listing "$repo" | grep -v '^cli/target/' >"$work/repo.before"
  run_step "discover-$name"
  [[ "$(cat "$work/discover-$name/status")" == 0 ]] || fail "discover on $name failed: $(tail -3 "$work/discover-$name/stderr")"
  [[ ! -s "$work/discover-$name/stderr" ]] || fail "discover on $name wrote to stderr: $(head -3 "$work/discover-$name/stderr")"
  listing "$repo" | grep -v '^cli/target/' >"$work/repo.after"
  cmp -s "$work/repo.before" "$work/repo.after" || fail "discover on $name changed files outside cli/target/: $(diff "$work/repo.before" "$work/repo.after" | head -5)"
  compgen -G "$repo/cli/target/nodeatlas-*.$kind" >/dev/null || fail "discover on $name recorded no .$kind cache: $(ls "$repo/cli/target")"
  pass "first discover on $name: .$kind cache in cli/target, nothing else changed"
}
echo "--- the first discover after a build, per JDK"
export PATH
(unset JAVA JAVA_HOME; check_first_discover default aot)
(export JAVA="$jdk25/bin/java"; check_first_discover jdk25 aot)
if [[ -n "$jdk17" ]]; then (export JAVA="$jdk17/bin/java"; check_first_discover jdk17 jsa); fi
null_is_device || fail "this machine's /dev/null changed"
echo "launcher host safety: /dev/null stayed the device 1:3; nothing written outside target/ and cli/target/"
