#!/usr/bin/env bash
# The profile behind bench/prepare.sh's rows: the same PrepareBench run (state and CDI on tmpfs, or on
# the disk with STATE_DIR=dir) with Java Flight Recorder in the agent, every park, monitor wait, socket
# and file I/O recorded (threshold 0) with its stack, and CPU samples every millisecond; prints where
# the agent's threads waited per Prepare+Unprepare (call site: the first frame of ours) and where its
# CPU went, by part of the call and by frame (bench/jfr-summary.py).
#   bench/profile-prepare.sh [N concurrent claims, default 32] [rounds, default 30]
# JFR's own cost inflates the latency; the counts and the shares are what to read. The recording covers
# the measured rounds, floor rounds included: the floor's own waits (PrepareBench prints them by thread)
# are in the counts too, about 1.2 per call at N=1 and 0.2 at N=32.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$bench_root"
n="${1:-32}"
rounds="${2:-30}"
if [[ -z "${NODEATLAS_JAVA_OPTS:-}" ]]; then
  eval "$(grep '^NODEATLAS_JAVA_OPTS=' systemd/nodeatlas.env)"
fi
bench_build
cp="$(bench_classpath agent)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
jdk="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
# JFR's profile settings, with every wait and I/O event at threshold 0.
python3 - "$jdk/lib/jfr/profile.jfc" "$work/waits.jfc" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
for ev in ["jdk.ThreadPark", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.SocketRead", "jdk.SocketWrite",
           "jdk.FileForce", "jdk.FileWrite", "jdk.FileRead"]:
    i = s.index('<event name="%s">' % ev)
    j = s.index("</event>", i)
    s = s[:i] + re.sub(r'(<setting name="threshold"[^>]*>)[^<]*(</setting>)', r"\g<1>0 ms\g<2>", s[i:j]) + s[j:]
# CPU samples every millisecond (the profile's 10 ms leaves a few hundred samples for a run of calls).
i = s.index('<event name="jdk.ExecutionSample">')
j = s.index("</event>", i)
s = s[:i] + re.sub(r'(<setting name="period"[^>]*>)[^<]*(</setting>)', r"\g<1>1 ms\g<2>", s[i:j]) + s[j:]
open(sys.argv[2], "w").write(s)
PY
props=(-Dnodeatlas.bench.concurrency="$n" -Dnodeatlas.bench.jfr="$work/waits.jfc:$work/agent")
[[ -n "${STATE_DIR:-}" ]] && props+=(-Dnodeatlas.bench.stateDir="$STATE_DIR")
# PrepareBench starts the recording after the warm-up and stops it after the measured rounds (jcmd), so
# the profile holds the measured Prepare and floor rounds only (the floor's share is the agent's gRPC side).
# shellcheck disable=SC2086
java -cp "$cp" "${props[@]}" io.nodeatlas.agent.bench.PrepareBench cli/target/nodeatlas.jar "$work" \
  "$rounds" "$rounds" $NODEATLAS_JAVA_OPTS \
  2> >(grep -v '^INFO: \|MockWebServer\|^[A-Z][a-z][a-z] [0-9]' >&2) | grep -v '^RESULT\|JVM options'
mv "$work/agent-$n.jfr" "$work/agent.jfr"
pairs=$((n * rounds))
"$jdk/bin/jfr" print --json --stack-depth 64 --events jdk.ThreadPark,jdk.JavaMonitorEnter,jdk.JavaMonitorWait,jdk.SocketRead,jdk.SocketWrite,jdk.FileForce,jdk.FileWrite,jdk.FileRead,jdk.ExecutionSample \
  "$work/agent.jfr" >"$work/agent.json"
cp "$work/agent.jfr" agent/target/prepare-profile.jfr
python3 bench/jfr-summary.py "$work/agent.json" "$pairs" "${TOP:-15}"
echo "recording: agent/target/prepare-profile.jfr (jfr print --events jdk.ThreadPark ... for the stacks)"
