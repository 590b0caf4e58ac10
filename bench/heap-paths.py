#!/usr/bin/env python3
"""Where a JVM's heap goes: reads an HPROF dump (`jcmd PID GC.heap_dump FILE`, live objects only) and
charges every object to what holds it, along the shortest path from a GC root (breadth first, thread
stacks first).

  bench/heap-paths.py DUMP [--top N] [--arrays MIN_BYTES] [--depth N]

Prints the heap by owner (the nearest holder outside java.*, jdk.*, sun.* and arrays, or the static
field that holds it) and the arrays of MIN_BYTES or more (default 2000) grouped by their DEPTH nearest
holders. Sizes are shallow and approximate (16 bytes of header per object, no alignment). Used in round
s7 to find the kept-alive TLS connections that held the agent's heap after a claim burst
(docs/design/speed-paths.md).
"""
import argparse
import collections
import struct

TYPE_SIZE = {2: 8, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
PRIMITIVE = {4: 'boolean', 5: 'char', 6: 'float', 7: 'double', 8: 'byte', 9: 'short', 10: 'int', 11: 'long'}
# The sub-records of a heap dump segment that are roots: their length after the object id.
ROOTS = {0xff: ('unknown', 0), 0x01: ('jni-global', 8), 0x02: ('jni-local', 8), 0x03: ('frame', 8),
         0x04: ('native-stack', 4), 0x05: ('sticky-class', 0), 0x06: ('thread-block', 4),
         0x07: ('monitor', 0), 0x08: ('thread', 8)}


def parse(path):
    data = open(path, 'rb').read()
    p = data.index(b'\0') + 1
    if struct.unpack_from('>I', data, p)[0] != 8:
        raise SystemExit('only 8-byte identifiers (a 64-bit JVM) are read')
    p += 12
    rid = lambda o: struct.unpack_from('>Q', data, o)[0]
    u4 = lambda o: struct.unpack_from('>I', data, o)[0]
    u2 = lambda o: struct.unpack_from('>H', data, o)[0]
    strings, names, classes, objs, roots, instances = {}, {}, {}, {}, {}, []
    statics = collections.defaultdict(list)
    while p < len(data):
        tag, length = data[p], u4(p + 5)
        body, p = p + 9, p + 9 + length
        if tag == 0x01:
            strings[rid(body)] = data[body + 8:body + length].decode('utf8', 'replace')
        elif tag == 0x02:
            names[rid(body + 4)] = strings.get(rid(body + 16), '?').replace('/', '.')
        elif tag in (0x0c, 0x1c):
            q = body
            while q < body + length:
                sub = data[q]
                q += 1
                if sub in ROOTS:
                    kind, extra = ROOTS[sub]
                    roots.setdefault(rid(q), kind)
                    q += 8 + extra
                elif sub == 0x20:  # class dump: id, stack, super, loader, signers, domain, 2 reserved, size
                    cid, sup = rid(q), rid(q + 12)
                    q += 64
                    n = u2(q)
                    q += 2
                    for _ in range(n):  # constant pool
                        q += 3 + TYPE_SIZE[data[q + 2]]
                    n = u2(q)
                    q += 2
                    for _ in range(n):  # statics
                        t = data[q + 8]
                        if t == 2 and rid(q + 9):
                            statics[cid].append(('static ' + strings.get(rid(q), '?'), rid(q + 9)))
                        q += 9 + TYPE_SIZE[t]
                    n = u2(q)
                    q += 2
                    fields = []
                    for _ in range(n):
                        fields.append((strings.get(rid(q), '?'), data[q + 8]))
                        q += 9
                    classes[cid] = (sup, fields)
                elif sub == 0x21:  # instance: id, stack, class, length, field values
                    n = u4(q + 20)
                    instances.append((rid(q), rid(q + 12), q + 24))
                    q += 24 + n
                elif sub == 0x22:  # object array: id, stack, length, class, ids
                    n = u4(q + 12)
                    refs = [('[%d]' % i, rid(q + 24 + 8 * i)) for i in range(n)]
                    objs[rid(q)] = (names.get(rid(q + 16), '?'), 16 + 8 * n, [r for r in refs if r[1]])
                    q += 24 + 8 * n
                elif sub == 0x23:  # primitive array: id, stack, length, type, values
                    n, t = u4(q + 12), data[q + 16]
                    objs[rid(q)] = ('[' + PRIMITIVE[t], 16 + n * TYPE_SIZE[t], [])
                    q += 17 + n * TYPE_SIZE[t]
                else:
                    raise SystemExit('unknown heap dump record 0x%x' % sub)
    for oid, cid, off in instances:
        refs, c, size = [], cid, 16
        while c in classes:  # the class's own fields first, then its superclass's
            sup, fields = classes[c]
            for name, t in fields:
                if t == 2 and rid(off):
                    refs.append((name, rid(off)))
                off += TYPE_SIZE[t]
                size += TYPE_SIZE[t]
            c = sup
        objs[oid] = (names.get(cid, '?'), size, refs)
    for cid in classes:
        objs[cid] = ('class ' + names.get(cid, '?'), 0, statics.get(cid, []))
    return objs, roots


def shortest_paths(objs, roots):
    parent = {}
    queue = collections.deque()
    ordered = sorted(roots.items(), key=lambda kv: kv[1] not in ('frame', 'thread', 'jni-local'))
    for oid, kind in ordered + [(c, 'class') for c, o in objs.items() if o[0].startswith('class ')]:
        if oid in objs and oid not in parent:
            parent[oid] = (None, kind)
            queue.append(oid)
    while queue:
        o = queue.popleft()
        for name, ref in objs[o][2]:
            if ref in objs and ref not in parent:
                parent[ref] = (o, name)
                queue.append(ref)
    return parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dump')
    ap.add_argument('--top', type=int, default=30)
    ap.add_argument('--arrays', type=int, default=2000)
    ap.add_argument('--depth', type=int, default=4)
    a = ap.parse_args()
    objs, roots = parse(a.dump)
    parent = shortest_paths(objs, roots)
    jdk = ('java.', 'jdk.', 'sun.', 'com.sun.', '[')

    def owner(o):
        for _ in range(64):
            up, name = parent.get(o, (None, 'unreached'))
            if up is None:
                return 'root %s: %s' % (name, objs[o][0])
            holder = objs[up][0]
            if holder.startswith('class ') or not holder.startswith(jdk):
                return holder + '.' + name
            o = up
        return 'deeper than 64: ' + objs[o][0]

    by_owner, count = collections.Counter(), collections.Counter()
    for o, (_, size, _) in objs.items():
        k = owner(o)
        by_owner[k] += size
        count[k] += 1
    print('heap by owner (%d objects, %.1f MB)' % (len(objs), sum(by_owner.values()) / 1e6))
    for k, v in by_owner.most_common(a.top):
        print('%10d %7d  %s' % (v, count[k], k))
    paths, count = collections.Counter(), collections.Counter()
    for o, (cls, size, _) in objs.items():
        if not cls.startswith('[') or size < a.arrays:
            continue
        chain, x = [cls], o
        for _ in range(a.depth):
            up, name = parent.get(x, (None, 'unreached'))
            if up is None:
                chain.append('root ' + name)
                break
            chain.append(name + ' of ' + objs[up][0])
            x = up
        k = ' <- '.join(chain)
        paths[k] += size
        count[k] += 1
    print('\narrays of %d bytes or more, by their nearest holders' % a.arrays)
    for k, v in paths.most_common(a.top):
        print('%10d %5d  %s' % (v, count[k], k))


if __name__ == '__main__':
    main()
