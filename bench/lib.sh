# Shared by the bench/ row scripts (sourced, not run). Each row script prints its figures for people,
# then one machine line for bench/table.sh:
#   ROW<TAB>what<TAB>today<TAB>limit<TAB>ratio<TAB>aim<TAB>pass|fail
# "limit" is the figure the row is compared with, measured in the same run (lstopo, a hello JVM, ...),
# "ratio" is today/limit. The machine these run on is shared and noisy: every figure is a median of
# several runs, and the runs of a row and of its limit are interleaved so that both see the same load.

bench_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The launcher under test; NODEATLAS=path measures another one (a saved copy of an older launcher).
launcher="${NODEATLAS:-$bench_root/nodeatlas}"

# Builds the launcher's jars (as ./nodeatlas does) and writes every module's test class path to its
# target/bench.classpath, in one Maven run: the class path is the compiler's own (its debug output),
# since neither the dependency plugin (it needs artifacts this machine lacks offline) nor the exec
# plugin's %classpath (its exec.args would override the cpu-numa module's own exec) can give it here.
# BENCH_NO_BUILD=1 skips it: bench/table.sh builds once and sets it for the row scripts.
# NODEATLAS_BENCH_SKIP_BUILD=1 (.ci/e2e/agent-jar.sh, after the build under test) keeps the jars and
# only compiles the tests and writes the class paths.
bench_build() {
  [[ -n "${BENCH_NO_BUILD:-}" ]] && return 0
  local log phase=package
  [[ -n "${NODEATLAS_BENCH_SKIP_BUILD:-}" ]] && phase=test-compile
  log="$(mktemp)"
  if ! (cd "$bench_root" && ./mvnw -X -B -o -pl cli -am "$phase" -DskipTests -Djazzer.skip=true >"$log" 2>&1); then
    grep -E '^\[(ERROR|WARNING)\]' "$log" | head -20 >&2; rm -f "$log"; echo "bench: the build failed" >&2; exit 1
  fi
  grep '(f) testPath = \[' "$log" | sed 's/.*testPath = \[//; s/\]$//; s/, /:/g' | while IFS= read -r cp; do
    local first="${cp%%:*}"
    [[ "$first" == */target/test-classes ]] && echo "$cp" >"${first%/test-classes}/bench.classpath"
  done
  rm -f "$log"
}

# The test class path of MODULE as bench_build wrote it.
bench_classpath() {
  [[ -s "$bench_root/$1/target/bench.classpath" ]] || { echo "bench: no class path for $1 (run without BENCH_NO_BUILD)" >&2; exit 1; }
  cat "$bench_root/$1/target/bench.classpath"
}

# row WHAT TODAY LIMIT RATIO AIM PASS(0|1)
row() {
  printf 'ROW\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$([[ $6 == 1 ]] && echo pass || echo fail)"
}

# The median of the numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) exit 1; print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Wall microseconds and CPU milliseconds (user + system, which the load of a shared machine moves much
# less than wall time) of one run of a command, output discarded: "WALL_US CPU_MS".
wall_cpu() {
  local s e f
  f="$(mktemp)"
  s=$(date +%s%N); /usr/bin/time -f '%U %S' -o "$f" "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
  echo "$(((e - s) / 1000)) $(awk '{printf "%d", ($1 + $2) * 1000}' "$f")"
  rm -f "$f"
}

# Peak RSS in KiB of one run of a command (/usr/bin/time, Debian package `time`).
peak_rss_kib() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }

# ratio A B: A/B with two decimals; lt A B: 1 when A < B.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN {print (a <= b) ? 1 : 0}'; }

# The java command line the launcher runs for "$@" (NODEATLAS_PRINT_COMMAND), into the array `cmd`.
launcher_command() {
  mapfile -t cmd < <(NODEATLAS_PRINT_COMMAND=1 "$launcher" "$@")
  [[ ${#cmd[@]} -gt 2 && -x "${cmd[0]}" || "${cmd[0]}" == java ]] || { echo "bench: $launcher does not print its command" >&2; exit 1; }
}

# A hello JVM: compiles Hello.java into DIR (once) and fills the array `hello` with JAVA FLAGS... -cp DIR
# Hello, where FLAGS are the given JVM flags without the launcher's start-up cache (an archive is tied to
# the jar it was recorded from).
hello_command() {
  local dir="$1" java="$2"; shift 2
  if [[ ! -f "$dir/Hello.class" ]]; then
    mkdir -p "$dir"
    printf 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n' >"$dir/Hello.java"
    "$(dirname "$(readlink -f "$(command -v "$java")")")/javac" --release 17 -d "$dir" "$dir/Hello.java"
  fi
  hello=("$java")
  local f
  for f in "$@"; do
    case "$f" in -XX:AOTCache=* | -XX:SharedArchiveFile=* | -Xshare:*) ;; *) hello+=("$f") ;; esac
  done
  hello+=(-cp "$dir" Hello)
}

# hello_cached DIR JAVA FLAGS...: as hello_command, and when FLAGS map a start-up cache (the launcher's
# -XX:AOTCache or -XX:SharedArchiveFile), the same kind of cache of the hello JVM's own classes: Hello
# goes into DIR/hello.jar (a cache holds no class of a directory), and a first run records the cache in
# DIR as the launcher records its own (JDK 24+: an AOT cache from a recorded configuration; older: a
# dynamic CDS archive at exit), so the floor starts the way the launcher's command does.
hello_cached() {
  local dir="$1" java="$2" kind="" f
  shift 2
  for f in "$@"; do
    case "$f" in -XX:AOTCache=*) kind=aot ;; -XX:SharedArchiveFile=*) kind=jsa ;; esac
  done
  hello_command "$dir" "$java" "$@"
  [[ -n "$kind" ]] || return 0
  local jdk_bin
  jdk_bin="$(dirname "$(readlink -f "$(command -v "$java")")")"
  [[ -f "$dir/hello.jar" ]] || "$jdk_bin/jar" cf "$dir/hello.jar" -C "$dir" Hello.class
  local run=("${hello[@]:0:${#hello[@]}-3}")
  if [[ $kind == aot && ! -s "$dir/hello.aot" ]]; then
    "${run[@]}" -XX:AOTMode=record -XX:AOTConfiguration="$dir/hello.aotconf" -cp "$dir/hello.jar" Hello >/dev/null 2>&1
    "${run[@]}" -XX:AOTMode=create -XX:AOTConfiguration="$dir/hello.aotconf" -XX:AOTCache="$dir/hello.aot" \
      -cp "$dir/hello.jar" Hello >/dev/null 2>&1
  elif [[ $kind == jsa && ! -s "$dir/hello.jsa" ]]; then
    "${run[@]}" -XX:ArchiveClassesAtExit="$dir/hello.jsa" -cp "$dir/hello.jar" Hello >/dev/null 2>&1
  fi
  [[ -s "$dir/hello.$kind" ]] || { echo "bench: no $kind cache for the hello JVM" >&2; exit 1; }
  if [[ $kind == aot ]]; then run+=(-XX:AOTCache="$dir/hello.aot"); else run+=(-XX:SharedArchiveFile="$dir/hello.jsa" -Xshare:auto); fi
  hello=("${run[@]}" -cp "$dir/hello.jar" Hello)
}

# The JVM flags of a launcher command (between the java binary and -jar, or -cp for the commands the
# launcher runs from nodeatlas-discover.jar).
jvm_flags_of() {
  local a
  flags=()
  for a in "${cmd[@]:1}"; do
    [[ "$a" == -jar || "$a" == -cp ]] && break
    flags+=("$a")
  done
}

# The test class path of MODULE (its test classes, classes, sibling modules and every test dependency),
# into the file named by $2. The dependency plugin cannot run offline here, and the reactor installs
# nothing, so the class path is the one surefire used for one quick test of MODULE ($3), read back from
# its report.
test_classpath() {
  local module="$1" file="$2" test="$3"
  (cd "$bench_root" && ./mvnw -q -B -o -pl "$module" -am test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
    -Djazzer.skip=true -Dnodeatlas.conformance.dir="${NODEATLAS_CONFORMANCE_DIR:-$bench_root/../shared/conformance}" >&2)
  sed -n 's/.*name="surefire.test.class.path" value="\([^"]*\)".*/\1/p' \
    "$bench_root/$module/target/surefire-reports/TEST-"*"$test.xml" | head -1 >"$file"
  [[ -s "$file" ]] || { echo "bench: no test class path for $module" >&2; exit 1; }
}

# Copies the directories of the class path in file $1 into $2 and rewrites the file to use the copies,
# so a build of this tree while the benchmark runs cannot change classes under it.
snapshot_classpath() {
  local file="$1" dir="$2" entry i=0 out=()
  mkdir -p "$dir"
  IFS=: read -r -a entries <"$file"
  for entry in "${entries[@]}"; do
    if [[ -d "$entry" ]]; then
      cp -r "$entry" "$dir/$i"; out+=("$dir/$i"); i=$((i + 1))
    else
      out+=("$entry")
    fi
  done
  (IFS=:; echo "${out[*]}") >"$file"
}

# The ColdRead floor of the launcher's command in cmd (launcher_command): its java and flags, and the same kind
# of start-up cache (AOT or CDS), recorded for ColdRead itself in DIR; ColdRead reads the paths in LIST from
# JAR. Sets floor (the command line) and cache (aot, cds or none).
coldread_floor() { # DIR LIST JAR
  local dir=$1 list=$2 jar=$3 i
  floor=("${cmd[0]}")
  cache=none
  for ((i = 1; i < ${#cmd[@]}; i++)); do
    case "${cmd[i]}" in
      -cp) break ;;
      -XX:AOTCache=*) cache=aot ;;
      -XX:SharedArchiveFile=*) cache=cds ;;
      -Xshare:*) ;;
      *) floor+=("${cmd[i]}") ;;
    esac
  done
  case "$cache" in
    aot) "${floor[@]}" -XX:AOTCacheOutput="$dir/cold.aot" -cp "$jar" ColdRead "$list" >/dev/null 2>&1
         floor+=(-XX:AOTCache="$dir/cold.aot") ;;
    cds) "${floor[@]}" -XX:ArchiveClassesAtExit="$dir/cold.jsa" -cp "$jar" ColdRead "$list" >/dev/null 2>&1
         floor+=(-XX:SharedArchiveFile="$dir/cold.jsa") ;;
  esac
  floor+=(-cp "$jar" ColdRead "$list")
}
