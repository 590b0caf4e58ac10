#!/usr/bin/env python3
"""Reads an `strace -f` log of one discovery run and keeps what happened under ROOT.

Writes LIST for bench/floor-reader.c (each file or directory successfully opened, once, in first-open
order: "F path" / "D path") and prints one summary line:
  <paths> <opens> <syscalls> <failed>
opens: successful openat calls (a file read twice counts twice); syscalls: every file-system call
naming a path under ROOT; failed: those that failed with ENOENT/ENOTDIR (lookups of what is not there).
"""
import os
import re
import sys

root, log, out = sys.argv[1], sys.argv[2], sys.argv[3]
call = re.compile(r'^(\d+)\s+(\w+)\((.*)$')
resumed = re.compile(r'^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$')
pending = {}
records = []  # (name, args, result)
for raw in open(log, errors='replace'):
    raw = raw.rstrip('\n')
    m = resumed.match(raw)
    if m:
        pid, name, rest = m.groups()
        if pid in pending:
            n, args = pending.pop(pid)
            records.append((n, args + rest))
        continue
    m = call.match(raw)
    if not m:
        continue
    pid, name, rest = m.groups()
    if rest.endswith('<unfinished ...>'):
        pending[pid] = (name, rest[:-len('<unfinished ...>')])
    else:
        records.append((name, rest))

seen = {}
opens = syscalls = failed = 0
for name, text in records:
    paths = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
    if not paths or not paths[0].startswith(root):
        continue
    syscalls += 1
    result = text.rsplit('=', 1)[-1].strip()
    if re.search(r'\bE(NOENT|NOTDIR)\b', result):
        failed += 1
    if name in ('openat', 'open') and re.match(r'^\d+', result):
        opens += 1
        # The JDK opens a directory with a plain O_RDONLY openat before fdopendir: ask the tree.
        kind = 'D' if os.path.isdir(paths[0]) else 'F'
        seen.setdefault(paths[0], kind)
with open(out, 'w') as f:
    for p, k in seen.items():
        f.write(f'{k} {p}\n')
print(len(seen), opens, syscalls, failed)
