#!/usr/bin/env python3
"""Methods and constructors longer than LIMIT lines under DIR (google-java-format layout: a body ends at
the first line that is the signature's indentation followed by '}')."""
import os, re, sys
root, limit = sys.argv[1], int(sys.argv[2])
sig = re.compile(r'^( +)(?:(?:public|protected|private|static|final|synchronized|abstract|default|native)\s+)*(?:<[^>]+>\s+)?(?:[\w.<>\[\],?]+(?:<[^;{]*>)?\s+)?(\w+)\s*\(')
skip = {'if', 'for', 'while', 'switch', 'catch', 'return', 'new', 'else', 'try', 'synchronized', 'throw', 'super', 'this'}
for d, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith('.java'):
            continue
        p = os.path.join(d, f)
        lines = open(p, encoding='utf-8').read().split('\n')
        for i, l in enumerate(lines):
            m = sig.match(l)
            if not m or m.group(2) in skip or l.strip().split('(')[0].split()[0] in skip or ' = ' in l.split('(')[0]:
                continue
            if l.rstrip().endswith(';') or ' record ' in l or ' class ' in l:
                continue
            ind = m.group(1)
            # the body must open on this or a following signature line
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith('{'):
                if lines[j].rstrip().endswith(';'):
                    break
                j += 1
            if j >= len(lines) or not lines[j].rstrip().endswith('{'):
                continue
            for k in range(j, len(lines)):
                if lines[k] == ind + '}':
                    n = k - i + 1
                    if n > limit:
                        print(f'{p}:{i+1} {m.group(2)} {n} lines')
                    break
