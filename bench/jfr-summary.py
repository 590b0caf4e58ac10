#!/usr/bin/env python3
"""Summarises a JFR recording of the agent for bench/profile-prepare.sh: where its threads waited
(park, monitor enter and wait, socket and file I/O: count per call site) and where its CPU went
(execution samples: top frames, self and with callers in our code), from `jfr print --json`.
  jfr-summary.py RECORDING.json CALLS [TOP]
CALLS: the number of Prepare+Unprepare pairs recorded, for per-call counts."""
import collections
import json
import sys

data = json.load(open(sys.argv[1]))
calls = max(1, int(sys.argv[2]))
top = int(sys.argv[3]) if len(sys.argv) > 3 else 12
events = data["recording"]["events"]


def frames(e):
    st = e["values"].get("stackTrace") or {}
    out = []
    for f in st.get("frames", []) or []:
        m = f["method"]
        out.append(m["type"]["name"].replace("/", ".") + "." + m["name"] + ":" + str(f.get("lineNumber", "")))
    return out


def site(fs):
    """The first frame of ours (io.nodeatlas), with the frame it called, or the top frame."""
    for i, f in enumerate(fs):
        if f.startswith("io.nodeatlas.") and "$$Lambda" not in f:
            below = fs[i - 1].rsplit(":", 1)[0] if i > 0 else ""
            return f + (" -> " + below if below else "")
    # No frame of ours: the two frames above the JDK's wait.
    return " <- ".join(x.rsplit(":", 1)[0] for x in fs[1:4]) if fs else "?"


def thread(e):
    t = e["values"].get("sampledThread") or e["values"].get("eventThread") or {}
    name = t.get("javaName") or t.get("osName") or "?"
    return "".join("#" if c.isdigit() else c for c in name)


waits = collections.Counter()
wait_ns = collections.Counter()
samples_self = collections.Counter()
samples_ours = collections.Counter()
samples_part = collections.Counter()
nsamples = 0
# What a CPU sample belongs to: the first of these found on its stack, from the top.
PARTS = [
    ("claim GET (HTTP, JSON)", ("ApiClaimLookup", "BlockingClaimGet", "Fabric8ClaimGet", "ClaimGet.")),
    ("checkpoint", ("agent.claims.Checkpoint",)),
    ("device metadata (KEP-5304)", ("agent.metadata.",)),
    ("CDI spec write/remove", ("io.nodeatlas.cdi.", "ClaimSpecStore")),
    ("metrics", ("agent.ops.AgentMetrics", "io.prometheus.")),
    ("rest of Prepare/Unprepare", ("agent.claims.", "agent.shares.")),
    ("gRPC service (protobuf, call)", ("agent.kubelet.",)),
    ("gRPC/Netty transport", ("io.grpc.",)),
]
for e in events:
    kind = e["type"].split(".")[-1]
    if kind in ("ThreadPark", "JavaMonitorEnter", "JavaMonitorWait", "SocketRead", "SocketWrite", "FileForce",
                "FileWrite", "FileRead"):
        key = (kind, thread(e), site(frames(e)))
        waits[key] += 1
        dur = e["values"].get("duration", "0")
        wait_ns[key] += 0
    elif kind == "ExecutionSample":
        fs = frames(e)
        if not fs:
            continue
        nsamples += 1
        samples_self[fs[0].rsplit(":", 1)[0]] += 1
        part = "other (" + thread(e) + ")"
        for name, keys in PARTS:
            if any(k in f for f in fs for k in keys):
                part = name
                break
        samples_part[part] += 1
        ours = next((f.rsplit(":", 1)[0] for f in fs if f.startswith("io.nodeatlas.") and "$$Lambda" not in f),
                    "(no frame of ours: " + fs[min(2, len(fs) - 1)].rsplit(":", 1)[0] + ")")
        samples_ours[ours] += 1

print(f"waits per Prepare+Unprepare ({calls} pairs), by kind, thread and call site (first frame of ours -> what it called):")
for (kind, th, s), n in waits.most_common(top * 2):
    print(f"  {n / calls:6.2f}  {kind:16s} {th:20s} {s}")
print(f"CPU samples: {nsamples}; top frames (self):")
for m, n in samples_self.most_common(top):
    print(f"  {100.0 * n / max(1, nsamples):5.1f}%  {m}")
print("by part of the call (the first of the parts found on the stack):")
for m, n in samples_part.most_common(top):
    print(f"  {100.0 * n / max(1, nsamples):5.1f}%  {m}")
print("by the first frame of ours on the stack:")
for m, n in samples_ours.most_common(top):
    print(f"  {100.0 * n / max(1, nsamples):5.1f}%  {m}")
