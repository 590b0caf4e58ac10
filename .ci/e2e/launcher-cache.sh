#!/usr/bin/env bash
# End-to-end: the launcher's start-up cache. From a clean cache, the first `./nodeatlas discover` records
# the cache while it runs (JDK 25+: the AOT configuration of that run, then the cache created from it;
# JDK 17: an AppCDS archive at exit), and a later run maps it. What a user must see:
#   - the recording run prints exactly what a later run prints: the JSON on stdout, nothing on stderr
#     (the JVM's own "AOTConfiguration recorded" line and a child JVM's JAVA_TOOL_OPTIONS are kept out);
#   - its exit status is the command's own;
#   - a cache file for this java and jar exists afterwards, and a later run's java command line uses it;
#   - with the AOT cache, that later run spins no class at run time (no lambda or method-handle class);
#   - the launcher finds its jars however it is named, and runs in the caller's directory;
#   - nodeatlas-discover.jar, which the launcher runs discover from, prints what nodeatlas.jar prints.
# Runs on one small fixture host from the conformance corpus (no root needed), so the output is stable.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }
corpus="${NODEATLAS_CONFORMANCE_DIR:-$(pwd)/../shared/conformance}/hwloc-linux"
snapshot="$(ls "$corpus"/*.tar.bz2 | head -1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -xjf "$snapshot" -C "$work"
root="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)"
./nodeatlas --version >/dev/null # builds the jar when needed (and records a cache: removed below)
rm -f cli/target/nodeatlas-*.aot cli/target/nodeatlas-*.jsa cli/target/nodeatlas-*.none

set +e
./nodeatlas discover --sources cpu-numa --host-root "$root" >"$work/first.json" 2>"$work/first.err"
first=$?
./nodeatlas discover --sources cpu-numa --host-root "$root" >"$work/second.json" 2>"$work/second.err"
second=$?
./nodeatlas discover --sources cpu-numa --host-root "$root" --no-such-flag >/dev/null 2>&1
usage=$?
set -e
[[ $first == 0 && $second == 0 ]] || fail "exit statuses $first and $second, want 0 and 0"
[[ $usage == 2 ]] || fail "a bad flag exits $usage with the cache in place, want 2"
cmp -s "$work/first.json" "$work/second.json" || fail "the recording run printed other output: $(diff "$work/first.json" "$work/second.json" | head -5)"
[[ ! -s "$work/first.err" ]] || fail "the recording run wrote to stderr: $(head -3 "$work/first.err")"
jq -e '.devices | length > 0' "$work/first.json" >/dev/null || fail "no devices in the output"
caches=(cli/target/nodeatlas-*.aot cli/target/nodeatlas-*.jsa)
found=()
for c in "${caches[@]}"; do [[ -s "$c" ]] && found+=("$(basename "$c")"); done
((${#found[@]} == 1)) || fail "want one start-up cache recorded, found: ${found[*]:-none}"
command_line="$(NODEATLAS_PRINT_COMMAND=1 ./nodeatlas discover)"
grep -Eq -- '^-XX:(AOTCache|SharedArchiveFile)=' <<<"$command_line" || fail "a later run does not map the cache"
# With the AOT cache a repeated discover spins no class at run time: a record's generated
# equals/hashCode or a JDK Comparator combinator on the discover path would spin method-handle and
# lambda classes there, which the cache cannot hold (see Order). A few ordinary classes the cache
# skipped may still be read from the jar or the JDK; they are not counted. Checked for the run above
# (cpu-numa), then for every source on the end-to-end fixture host (NICs, SR-IOV, RDMA, PCI), from a
# cache that host's first discover records.
spins_nothing() {
  NODEATLAS_JAVA_OPTS="-Xlog:class+load=info:file=$work/classes.log" ./nodeatlas discover "$@" >/dev/null ||
    fail "discover $* failed"
  grep -q 'source: shared objects file' "$work/classes.log" || fail "discover $* did not map the AOT cache"
  spun="$(grep -v 'source: shared objects file' "$work/classes.log" | grep -E 'LambdaForm\$|\$\$Lambda|__JVM_LookupDefineClass__|/0x' || true)"
  [[ -z "$spun" ]] || fail "a repeated discover $* spun classes at run time:
$(head -20 <<<"$spun")"
}
# The launcher names the discover jar's list of discovery sources, which the build copies out beside it
# (cli/pom.xml), so a discover finds its sources without opening the jar (InstalledSources): with the
# AOT cache that run opens neither jar at all (its classes come from the cache).
services="$(pwd)/cli/target/nodeatlas-discover.services"
[[ -s "$services" ]] || fail "the build left no $services"
grep -qxF -- "-Dnodeatlas.discovery.services=$services" <<<"$command_line" || fail "discover does not name $services"
if grep -q -- '^-XX:AOTCache=' <<<"$command_line"; then
  spins_nothing --sources cpu-numa --host-root "$root"
  if command -v strace >/dev/null; then
    strace -f -qq -e trace=open,openat -o "$work/opens.log" ./nodeatlas discover --sources cpu-numa --host-root "$root" \
      >"$work/traced.json" || fail "discover under strace failed"
    cmp -s "$work/first.json" "$work/traced.json" || fail "discover under strace printed other output"
    grep -q 'nodeatlas-discover\.services' "$work/opens.log" || fail "discover did not read $services"
    opened="$(grep -E 'nodeatlas(-discover)?\.jar' "$work/opens.log" || true)"
    [[ -z "$opened" ]] || fail "a discover with the AOT cache opened a jar: $(head -3 <<<"$opened")"
  fi
  rm -f cli/target/nodeatlas-*.aot
  ./nodeatlas discover --host-root .ci/e2e/fixtures/hostroot >/dev/null || fail "discover of the fixture host failed"
  spins_nothing --host-root .ci/e2e/fixtures/hostroot
fi

# However the launcher is named (relative, absolute, through bash, from a subdirectory, through `..`),
# it finds the same jars, and runs the command in the caller's directory: `--version` and `--help` alone
# from nodeatlas-top.jar (then the jar picocli would need), `discover` from nodeatlas-discover.jar,
# every other command from nodeatlas.jar.
target="$(cd "$(pwd)" && pwd)/cli/target"
for form in "./nodeatlas" "$(pwd)/nodeatlas" "bash nodeatlas" "cd cli && ../nodeatlas" "cd cli && ./../nodeatlas"; do
  got="$(bash -c "export NODEATLAS_PRINT_COMMAND=1; $form --version" | grep -x -- '.*\.jar')"
  [[ "$got" == "$target/nodeatlas-top.jar:$target/nodeatlas-discover.jar" ]] ||
    fail "launched as '$form' --version runs $got, want $target/nodeatlas-top.jar:$target/nodeatlas-discover.jar"
  got="$(bash -c "export NODEATLAS_PRINT_COMMAND=1; $form --help" | grep -x -- '.*\.jar')"
  [[ "$got" == "$target/nodeatlas-top.jar:$target/nodeatlas.jar" ]] ||
    fail "launched as '$form' --help runs $got, want $target/nodeatlas-top.jar:$target/nodeatlas.jar"
  got="$(bash -c "export NODEATLAS_PRINT_COMMAND=1; $form discover" | grep -x -- '.*\.jar')"
  [[ "$got" == "$target/nodeatlas-discover.jar" ]] || fail "launched as '$form' discover runs $got, want $target/nodeatlas-discover.jar"
  got="$(bash -c "export NODEATLAS_PRINT_COMMAND=1; $form cdi --help" | grep -x -- '.*\.jar')"
  [[ "$got" == "$target/nodeatlas.jar" ]] || fail "launched as '$form' cdi runs $got, want $target/nodeatlas.jar"
done

# `--version`, `-V`, `--help` and `-h` alone print, with their exit status, what the whole jar prints,
# and load no class from a jar but nodeatlas-top.jar (the big jar after it is never opened): the first
# `--version` and the first `--help` record a start-up cache of their own (each run below is checked
# twice: the recording run, then one that maps the cache), whose classes are nodeatlas-top.jar's.
java_bin="$(NODEATLAS_PRINT_COMMAND=1 ./nodeatlas --version | sed -n 1p)"
rm -f cli/target/nodeatlas-*-version.* cli/target/nodeatlas-*-help.*
for arg in --version -V --help -h --version --help; do
  set +e
  "$java_bin" --enable-native-access=ALL-UNNAMED -jar cli/target/nodeatlas.jar "$arg" >"$work/whole.out" 2>"$work/whole.err"
  whole=$?
  NODEATLAS_JAVA_OPTS="-Xlog:class+load=info:file=$work/top.log" ./nodeatlas "$arg" >"$work/top.out" 2>"$work/top.err"
  top=$?
  set -e
  [[ $whole == 0 && $top == 0 ]] || fail "'$arg' exits $top from the launcher and $whole from nodeatlas.jar, want 0"
  cmp -s "$work/whole.out" "$work/top.out" || fail "'$arg': the launcher prints other output: $(diff "$work/whole.out" "$work/top.out" | head -5)"
  [[ ! -s "$work/top.err" ]] || fail "'$arg' wrote to stderr: $(head -3 "$work/top.err")"
  grep -Eq 'io\.nodeatlas\.cli\.Main source: (.*nodeatlas-top\.jar|shared objects file)' "$work/top.log" ||
    fail "'$arg' loaded Main from neither nodeatlas-top.jar nor its start-up cache: $(grep -m1 'cli\.Main ' "$work/top.log")"
  other="$(grep -E 'source: .*(nodeatlas\.jar|nodeatlas-discover\.jar)' "$work/top.log" || true)"
  [[ -z "$other" ]] || fail "'$arg' loaded classes from a big jar: $(head -5 <<<"$other")"
done
# `--version` with more arguments is picocli's to judge with its whole command tree: the launcher prints,
# on both streams and with its exit status, what nodeatlas.jar prints (it once ran such a line from the
# discover jar, which lacks the agent's classes: NoClassDefFoundError).
for line in "--version foo" "-V -V" "--version --help" "-V discover"; do
  read -r -a args <<<"$line"
  set +e
  "$java_bin" --enable-native-access=ALL-UNNAMED -jar cli/target/nodeatlas.jar "${args[@]}" >"$work/whole.out" 2>"$work/whole.err"
  whole=$?
  ./nodeatlas "${args[@]}" >"$work/launched.out" 2>"$work/launched.err"
  launched=$?
  set -e
  [[ $whole == "$launched" ]] || fail "'$line' exits $launched from the launcher, $whole from nodeatlas.jar: $(head -3 "$work/launched.err")"
  cmp -s "$work/whole.out" "$work/launched.out" || fail "'$line': the launcher prints other output: $(diff "$work/whole.out" "$work/launched.out" | head -5)"
  cmp -s "$work/whole.err" "$work/launched.err" || fail "'$line': the launcher prints other messages: $(diff "$work/whole.err" "$work/launched.err" | head -5)"
done
for what in version help; do
  compgen -G "cli/target/nodeatlas-*-$what.[aj][os][ta]" >/dev/null || fail "--$what recorded no start-up cache: $(ls cli/target)"
  NODEATLAS_PRINT_COMMAND=1 ./nodeatlas "--$what" | grep -E -- "^-XX:(AOTCache|SharedArchiveFile)=.*-$what\.(aot|jsa)$" >/dev/null ||
    fail "a later --$what does not map its own start-up cache"
done

# nodeatlas-discover.jar holds only what discover needs: each of these prints, on both streams, with
# its exit status, exactly what the whole jar prints (a class left out of it would fail here).
# sed reads to the end: with head, the launcher could write its next line after head left (SIGPIPE, 141).
fixture=.ci/e2e/fixtures/hostroot
while IFS= read -r line; do
  read -r -a args <<<"$line"
  set +e
  "$java_bin" --enable-native-access=ALL-UNNAMED -jar cli/target/nodeatlas.jar "${args[@]}" >"$work/whole.out" 2>"$work/whole.err"
  whole=$?
  "$java_bin" --enable-native-access=ALL-UNNAMED -cp cli/target/nodeatlas-discover.jar io.nodeatlas.cli.Main "${args[@]}" \
    >"$work/small.out" 2>"$work/small.err"
  small=$?
  set -e
  [[ $whole == "$small" ]] || fail "'$line': nodeatlas-discover.jar exits $small, nodeatlas.jar $whole: $(head -3 "$work/small.err")"
  cmp -s "$work/whole.out" "$work/small.out" || fail "'$line': other output from nodeatlas-discover.jar: $(diff "$work/whole.out" "$work/small.out" | head -5)"
  cmp -s "$work/whole.err" "$work/small.err" || fail "'$line': other messages from nodeatlas-discover.jar: $(diff "$work/whole.err" "$work/small.err" | head -5)"
done <<EOF
--version
discover --sources cpu-numa --host-root $root
discover --sources all --host-root $fixture
discover --host-root $fixture --format yaml
discover --host-root $fixture -o table
discover --host-root $fixture -o tree
discover --host-root $fixture -o svg
discover --sources cpu-numa,nic-rdma --host-root $fixture --format=json
discover --sources gpu --host-root $fixture --nvml-library /nonexistent/libnvidia-ml.so.1
discover --help
discover --sources no-such-source --host-root $fixture
discover --no-such-flag
EOF
# A relative path in the arguments means the caller's directory.
(cd "$work" && "$OLDPWD/nodeatlas" discover --sources cpu-numa --host-root "./${root##*/}") >"$work/relative.json" ||
  fail "discover with a host root relative to the caller's directory failed"
cmp -s "$work/first.json" "$work/relative.json" || fail "a relative host root gave other output"
echo "launcher cache: recorded by the first discover (${found[0]}), its output unchanged; later runs map it"
