#!/usr/bin/env bash
# End-to-end: a real CDI consumer injects the specs `nodeatlas cdi generate` writes.
#
# podman 4.3.1 + runc from Debian 12 (shared/reference/cdi.md §7.2), a busybox rootfs imported as a
# local image, no registry, podman state in a private scratch dir. podman 4.3.1 only reads /etc/cdi and
# /var/run/cdi, so every podman call runs in a private mount namespace where those two are bind mounts
# of our scratch dirs: the host's real CDI dirs are never read or written.
#
# For every device the spec promises, a container is started with --device <kind>=<name> and what the
# spec promised is checked inside: env vars, device nodes (type, major:minor, mode, cgroup access) and
# mounts (fs type, read-only, content). Then invalid specs (one per validation rule) must be refused by
# both `nodeatlas cdi validate` and podman.
#
# Environment:
#   NODEATLAS            command to run (default ./nodeatlas), e.g. "java -cp ... io.nodeatlas.cdi.cli.CdiMain"
#                        (then it is the `cdi` command itself: set NODEATLAS_CDI_ONLY=1)
#   NODEATLAS_E2E_INPUT  discovered (default: the saved discover document in fixtures/discovered.json.in)
#                        or host-root (discover fixtures/hostroot with --host-root)
# Needs root, podman, runc, busybox-static and jq. Idempotent; leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
fixtures=$repo/.ci/e2e/fixtures
read -r -a nodeatlas <<< "${NODEATLAS:-./nodeatlas}"
if [[ "${NODEATLAS_CDI_ONLY:-0}" == 1 ]]; then cdi=("${nodeatlas[@]}"); else cdi=("${nodeatlas[@]}" cdi); fi
input=${NODEATLAS_E2E_INPUT:-discovered}
start=$(date +%s)

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "  ok: $*"; }
for tool in podman runc jq busybox unshare; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install podman runc busybox-static jq)"
done
[[ $(id -u) == 0 ]] || fail "needs root (podman with runc, device nodes, bind mounts)"

W=$(mktemp -d /tmp/nodeatlas-cdi-e2e.XXXXXX)
created_dirs=()
for d in /etc/cdi /var/run/cdi; do
  # Mount points for the private bind mounts; created empty only when missing and removed again.
  if [[ ! -d $d ]]; then mkdir -p "$d"; created_dirs+=("$d"); fi
done
export CONTAINERS_CONF=$W/containers.conf
P=(podman --root "$W/storage" --runroot "$W/runroot" --tmpdir "$W/tmp")
cleanup() {
  set +e
  "${P[@]}" rm -a -f >/dev/null 2>&1
  "${P[@]}" rmi -a -f >/dev/null 2>&1
  grep -o " $W/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m"; done
  rm -rf "$W"
  for d in "${created_dirs[@]}"; do rmdir "$d" 2>/dev/null; done
}
trap cleanup EXIT

# --- podman set-up (cdi.md §7.2: crun cannot run here; podman raises nofile beyond what root may) ------
cat > "$CONTAINERS_CONF" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "none"
CONF
mkdir -p "$W/rootfs/bin" "$W/rootfs/dev" "$W/rootfs/proc" "$W/rootfs/sys" "$W/rootfs/etc" "$W/rootfs/tmp" \
  "$W/etc-cdi" "$W/cdi" "$W/bad"
cp "$(command -v busybox)" "$W/rootfs/bin/busybox"
for a in sh env cat stat grep echo test head; do ln -s busybox "$W/rootfs/bin/$a"; done
tar -C "$W/rootfs" -cf "$W/rootfs.tar" .
"${P[@]}" import -q "$W/rootfs.tar" localhost/nodeatlas-cdi-e2e:latest >/dev/null
image=localhost/nodeatlas-cdi-e2e:latest

# podman_in DIR ARGS...: podman with DIR as /var/run/cdi and an empty /etc/cdi, in a private mount namespace.
podman_in() {
  local dir=$1; shift
  unshare -m --propagation private -- sh -c 'mount --bind "$1" /etc/cdi && mount --bind "$2" /var/run/cdi && shift 2 && exec "$@"' \
    sh "$W/etc-cdi" "$dir" "${P[@]}" "$@"
}
run_with() { # DIR DEVICE... -- COMMAND
  local dir=$1; shift
  local args=()
  while [[ $1 != -- ]]; do args+=(--device "$1"); shift; done
  shift
  podman_in "$dir" run --rm --network none "${args[@]}" "$image" sh -c "$*" 2> >(grep -v oom_score_adj >&2)
}

# --- 1. generate ---------------------------------------------------------------------------------------
echo "==> generate ($input)"
if [[ $input == discovered ]]; then
  sed "s#@FIXTURES@#$fixtures#g" "$fixtures/discovered.json.in" > "$W/discovered.json"
  gen=("${cdi[@]}" generate --discovered "$W/discovered.json" --output-dir "$W/cdi")
else
  gen=("${cdi[@]}" generate --host-root "$fixtures/hostroot" --output-dir "$W/cdi")
fi
"${gen[@]}" > "$W/generate.out" || fail "cdi generate failed: $(cat "$W/generate.out")"
cat "$W/generate.out"
ls "$W/cdi"/*.json >/dev/null 2>&1 || fail "no spec written"
for f in "$W/cdi"/*; do
  case $(basename "$f") in
    nodeatlas.io-*.json) ;;
    *) fail "unexpected file in the CDI dir: $f (temporary files must not stay)";;
  esac
  [[ $(stat -c %a "$f") == 644 ]] || fail "$f is not mode 0644"
done
pass "specs written, mode 0644, no temporary file left"

before=$(stat -c '%n %Y %i' "$W/cdi"/*)
sleep 1
"${gen[@]}" > "$W/generate2.out" || fail "second cdi generate failed"
grep -q '^wrote' "$W/generate2.out" && fail "unchanged specs were rewritten: $(cat "$W/generate2.out")"
[[ $(stat -c '%n %Y %i' "$W/cdi"/*) == "$before" ]] || fail "spec files changed on an identical second run"
pass "second run rewrites nothing (runtimes are not woken for nothing)"

"${cdi[@]}" validate "$W/cdi" > "$W/validate.out" || fail "our own specs do not validate: $(cat "$W/validate.out")"
pass "cdi validate accepts every generated spec"
"${cdi[@]}" list --spec-dir "$W/cdi" > "$W/list.out"
[[ -s "$W/list.out" ]] || fail "cdi list printed nothing"
pass "cdi list: $(wc -l < "$W/list.out") devices"

# --- 2. inject every device podman's CDI library can read and check what each spec promised ------------
# podman 4.3.1 knows cdiVersion 0.1.0-0.5.0 only (cdi.md §4.5): newer specs (netDevices => 1.1.0) are
# refused as a whole, which is checked too.
checked=0
report_cmd='env; echo ---NODES; for p in "$@"; do stat -c "%n|%F|%t|%T|%a" "$p"; done; echo ---MOUNTS; cat /proc/mounts; echo ---CGROUP; cat /sys/fs/cgroup/devices/devices.list 2>/dev/null || echo none'
for spec in "$W/cdi"/*.json; do
  kind=$(jq -r .kind "$spec"); version=$(jq -r .cdiVersion "$spec")
  if [[ ! $version =~ ^0\.[1-5]\.0$ ]]; then
    for name in $(jq -r '.devices[].name' "$spec"); do
      if out=$(run_with "$W/cdi" "$kind=$name" -- true 2>&1); then fail "podman 4.3.1 accepted $kind=$name at cdiVersion $version"; fi
      grep -q "unresolvable CDI devices $kind=$name" <<< "$out" || fail "unexpected podman error for $kind=$name: $out"
      pass "$kind=$name (cdiVersion $version) is refused by podman 4.3.1, as its library only knows <= 0.5.0"
    done
    continue
  fi
  for name in $(jq -r '.devices[].name' "$spec"); do
    edits=$(jq -c --arg n "$name" '(.containerEdits // {}) as $top | (.devices[] | select(.name == $n) | .containerEdits) as $d
      | {env: (($top.env // []) + ($d.env // [])), deviceNodes: (($top.deviceNodes // []) + ($d.deviceNodes // [])),
         mounts: (($top.mounts // []) + ($d.mounts // []))}' "$spec")
    mapfile -t paths < <(jq -r '.deviceNodes[].path' <<< "$edits")
    out=$(run_with "$W/cdi" "$kind=$name" -- "set -- ${paths[*]}; $report_cmd") || fail "podman could not run $kind=$name: $out"
    envs=$(sed -n '1,/^---NODES$/p' <<< "$out"); nodes=$(sed -n '/^---NODES$/,/^---MOUNTS$/p' <<< "$out")
    mounts=$(sed -n '/^---MOUNTS$/,/^---CGROUP$/p' <<< "$out"); cgroup=$(sed -n '/^---CGROUP$/,$p' <<< "$out")
    while IFS= read -r e; do
      [[ -z $e ]] && continue
      grep -qxF -- "$e" <<< "$envs" || fail "$kind=$name: env $e missing in the container"
    done < <(jq -r '.env[]' <<< "$edits")
    while IFS='|' read -r path host type major minor mode perms; do
      line=$(grep "^$path|" <<< "$nodes") || fail "$kind=$name: device node $path missing in the container"
      IFS='|' read -r _ ftype tmaj tmin tmode <<< "$line"
      src=${host:-$path}
      if [[ -z $type ]]; then # the runtime stats the host node (cdi.md §2): compare with it
        type=$(stat -c %F "$src" | sed 's/character special file/c/; s/block special file/b/')
        major=$((16#$(stat -c %t "$src"))); minor=$((16#$(stat -c %T "$src")))
      fi
      [[ -z $mode ]] && mode=$((8#$(stat -c %a "$src")))
      [[ $type == c && $ftype == "character special file" ]] || [[ $type == b && $ftype == "block special file" ]] \
        || fail "$kind=$name: $path is a $ftype, spec says type $type"
      [[ $((16#$tmaj)):$((16#$tmin)) == "$major:$minor" ]] || fail "$kind=$name: $path is $((16#$tmaj)):$((16#$tmin)), spec says $major:$minor"
      [[ $((8#$tmode)) == "$mode" ]] || fail "$kind=$name: $path has mode $tmode, spec says $(printf %o "$mode")"
      if [[ $cgroup != *none* ]]; then
        grep -qx "$type $major:$minor ${perms:-rwm}" <<< "$cgroup" \
          || fail "$kind=$name: no cgroup rule '$type $major:$minor ${perms:-rwm}' in: $cgroup"
      fi
      pass "$kind=$name: $path $type $major:$minor mode $(printf %o "$mode") cgroup ${perms:-rwm}"
    done < <(jq -r '.deviceNodes[] | [.path, (.hostPath // ""), (.type // ""), (.major // "" | tostring), (.minor // "" | tostring), (.fileMode // "" | tostring), (.permissions // "")] | join("|")' <<< "$edits")
    while IFS='|' read -r host target type options; do
      line=$(awk -v t="$target" '$2 == t' <<< "$mounts") || true
      [[ -n $line ]] || fail "$kind=$name: mount $target missing in the container"
      read -r _ _ fstype mopts _ <<< "$line"
      [[ -z $type || $type == "$fstype" ]] || fail "$kind=$name: $target is $fstype, spec says $type"
      if [[ ,$options, == *,ro,* ]]; then [[ $mopts == ro,* ]] || fail "$kind=$name: $target is not read-only ($mopts)"; fi
      for o in ${options//,/ }; do
        case $o in pagesize=*) [[ ,$mopts, == *,$o,* ]] || fail "$kind=$name: $target lacks $o ($mopts)";; esac
      done
      if [[ -f $host ]]; then
        inside=$(run_with "$W/cdi" "$kind=$name" -- "cat '$target'")
        [[ $inside == "$(cat "$host")" ]] || fail "$kind=$name: $target does not show $host's content"
      fi
      pass "$kind=$name: mount $target ($fstype, $mopts)"
    done < <(jq -r '.mounts[] | [.hostPath, .containerPath, (.type // ""), ((.options // []) | join(","))] | join("|")' <<< "$edits")
    checked=$((checked + 1))
  done
done
((checked > 0)) || fail "no device was injected"
pass "$checked devices injected by podman as their specs promised"

if [[ $input == discovered ]]; then
  # Pin the checks above to known values, so a generator that dropped edits cannot pass vacuously.
  out=$(run_with "$W/cdi" nodeatlas.io/rdma=rdma-mlx5-1 -- 'stat -c "%n %t:%T %a" /dev/infiniband/uverbs1 /dev/infiniband/umad1; cat /sys/fs/cgroup/devices/devices.list; env')
  grep -qx "/dev/infiniband/uverbs1 e7:c1 666" <<< "$out" || fail "uverbs1 is not c 231:193 0666: $out"
  grep -qx "/dev/infiniband/umad1 e7:1 600" <<< "$out" || fail "umad1 is not c 231:1 0600: $out"
  grep -qx "c 231:1 r" <<< "$out" || fail "umad1 is not read-only in the device cgroup: $out"
  grep -qx "NODEATLAS_RDMA_DEVICE=mlx5_1" <<< "$out" || fail "rdma env missing: $out"
  out=$(run_with "$W/cdi" nodeatlas.io/gpu=all -- 'ls /dev/nvidia0 /dev/nvidia1 /dev/nvidiactl && ! (echo x > /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15) 2>/dev/null')
  pass "gpu=all gives both GPUs and a read-only driver library"
  out=$(run_with "$W/cdi" nodeatlas.io/rdma=rdma-mlx5-0 -- 'test ! -e /dev/infiniband/uverbs1 && test ! -e /dev/nvidia0 && echo isolated')
  [[ $out == isolated ]] || fail "rdma-mlx5-0 also got another device's nodes"
  pass "a container gets only the devices it asked for"
  grep -q 'nodeatlas.io/hugepages, cdiVersion 0.4.0' "$W/generate.out" || fail "hugepages spec is not at its minimum 0.4.0"
  grep -q 'nodeatlas.io/rdma, cdiVersion 0.3.0' "$W/generate.out" || fail "rdma spec is not at its minimum 0.3.0"
  grep -q 'nodeatlas.io/cpu, cdiVersion 0.5.0' "$W/generate.out" || fail "cpu spec (hostPath) is not at 0.5.0"
  pass "each spec declares the minimum cdiVersion its content needs"
fi

# --- 3. what our validator rejects, podman rejects too -----------------------------------------------
echo "==> invalid specs: nodeatlas cdi validate and podman must both refuse them"
bad() { # NAME EXPECTED-MESSAGE JSON
  printf '%s\n' "$3" > "$W/bad/$1.json"
  echo "$1|$2" >> "$W/bad.cases"
}
edits='"containerEdits":{"env":["A=1"]}'
bad env 'invalid environment variable \"=1\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/env","devices":[{"name":"d","containerEdits":{"env":["=1"]}}]}'
bad node-type 'device \"/dev/x\": invalid type \"char\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/node-type","devices":[{"name":"d","containerEdits":{"deviceNodes":[{"path":"/dev/x","type":"char","major":1,"minor":3}]}}]}'
bad node-perms 'device \"/dev/x\": invalid permissions \"rx\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/node-perms","devices":[{"name":"d","containerEdits":{"deviceNodes":[{"path":"/dev/x","type":"c","major":1,"minor":3,"permissions":"rx"}]}}]}'
bad hook 'invalid hook name \"preStart\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/hook","devices":[{"name":"d","containerEdits":{"hooks":[{"hookName":"preStart","path":"/bin/true"}]}}]}'
bad empty-edits 'invalid device, empty device edits' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/empty-edits","devices":[{"name":"d","containerEdits":{}}],"containerEdits":{"env":["A=1"]}}'
bad version 'invalid version \"0.9.0\"' \
  '{"cdiVersion":"0.9.0","kind":"bad.example.com/version","devices":[{"name":"d",'"$edits"'}]}'
bad vendor 'invalid vendor. \"1bad.example.com\", should start with letter' \
  '{"cdiVersion":"0.3.0","kind":"1bad.example.com/vendor","devices":[{"name":"d",'"$edits"'}]}'
bad device-name 'invalid name \"d_\", should end with a letter or digit' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/device-name","devices":[{"name":"d_",'"$edits"'}]}'
bad duplicate 'invalid spec, multiple device \"d\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/duplicate","devices":[{"name":"d",'"$edits"'},{"name":"d",'"$edits"'}]}'
bad mount 'invalid mount, empty container path' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/mount","devices":[{"name":"d","containerEdits":{"mounts":[{"hostPath":"/tmp","containerPath":""}]}}]}'
bad unknown-field 'unknown field \"bogus\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/unknown-field","bogus":1,"devices":[{"name":"d",'"$edits"'}]}'
bad conflict-a 'conflicting device \"bad.example.com/conflict=d\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/conflict","devices":[{"name":"d",'"$edits"'},{"name":"other",'"$edits"'}]}'
bad conflict-b 'conflicting device \"bad.example.com/conflict=d\"' \
  '{"cdiVersion":"0.3.0","kind":"bad.example.com/conflict","devices":[{"name":"d","containerEdits":{"env":["B=2"]}}]}'
printf '%s\n' '{"cdiVersion":"0.3.0","kind":"good.example.com/ok","devices":[{"name":"d","containerEdits":{"env":["GOOD=yes"]}}]}' > "$W/bad/good.json"

if "${cdi[@]}" validate "$W/bad" > "$W/bad-validate.out" 2>&1; then fail "cdi validate accepted the invalid specs"; fi
devices=()
while IFS='|' read -r case message; do
  file="$W/bad/$case.json"
  grep -F -- "$file" "$W/bad-validate.out" | grep -qF -- "${message//\\/}" \
    || fail "cdi validate did not report '${message//\\/}' for $case: $(cat "$W/bad-validate.out")"
  kind=$(jq -r .kind "$file")
  [[ $case == conflict-b ]] || devices+=("$kind=$(jq -r '.devices[0].name' "$file")")
done < "$W/bad.cases"
grep -qx "ok $W/bad/good.json (good.example.com/ok, cdiVersion 0.3.0, 1 devices)" "$W/bad-validate.out" || fail "good.json not accepted"
grep -q "other" "$W/bad-validate.out" && fail "the conflict also rejected a non-conflicting device"
pass "cdi validate refuses ${#devices[@]} invalid specs with the library's messages and accepts the valid one"

for dev in "${devices[@]}"; do
  if out=$(run_with "$W/bad" "$dev" -- true 2>&1); then fail "podman accepted $dev, which our validator rejects"; fi
  # An invalid vendor or device name is not even parsed as a CDI name: podman then takes it for a host path.
  grep -qE "unresolvable CDI devices|stat $dev: no such file or directory" <<< "$out" \
    || fail "podman failed for another reason on $dev: $out"
done
pass "podman refuses all ${#devices[@]} devices our validator refuses"
out=$(run_with "$W/bad" good.example.com/ok=d bad.example.com/conflict=other -- 'echo $GOOD $A') \
  || fail "invalid neighbours broke valid devices: $out"
[[ $out == "yes 1" ]] || fail "valid devices next to invalid files not injected: $out"
pass "valid devices next to invalid files still inject (runtimes skip bad files, drop only conflicting devices)"

echo "==> podman-cdi e2e passed in $(( $(date +%s) - start )) s"
