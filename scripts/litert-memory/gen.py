#!/usr/bin/env python3
"""Writes random TFLite records CSVs and LiteRT's answers for them.

    scripts/litert-memory/gen.py LITERT_MEMORY_BINARY OUT_DIR [SEED]

For each case it writes OUT_DIR/NAME.csv (membench's TFLite records
format) and OUT_DIR/NAME.out (what litert-memory, LiteRT's own
memory_management.cc, prints for it). The cases vary the size type (bytes,
bytes with a reuse or deps column, 2d, 3d, BHWC), n (1 to a few hundred),
sizes drawn from small sets (ties) or wide ranges (up to the type's limit,
where uint32 element counts wrap), zero extents, tied and nested
lifetimes, and file order (sorted by first task, or shuffled).
"""
import os
import random
import subprocess
import sys

U32 = 2**32 - 1
I32 = 2**31 - 1


def lifetimes(rng, n, style):
    """n (first, last) pairs; style picks how they overlap."""
    out = []
    if style == "chain":  # each record lives over one or two steps
        for i in range(n):
            out.append((i, i + rng.choice([0, 1, 1, 2])))
    elif style == "ties":  # few distinct tasks: many equal firsts and lasts
        t = max(2, n // 6)
        for _ in range(n):
            f = rng.randrange(t)
            out.append((f, f + rng.choice([0, 0, 1, 2, t // 2])))
    else:  # wide: long and short lives mixed
        t = max(2, n)
        for _ in range(n):
            f = rng.randrange(t)
            out.append((f, min(t + 5, f + int(rng.expovariate(1 / max(1, t / 8))))))
    return out


def pick(rng, choices, wide, top):
    if wide:
        return rng.choice([0, 1, top, top - 1, rng.randrange(top + 1), rng.randrange(1 << 16), rng.randrange(1 << 8)])
    return rng.choice(choices)


def extents(rng, kind, wide):
    """Extents of one record whose byte view (at 16-byte elements at most)
    stays within int64, as membench's reader requires."""
    while True:
        e = draw(rng, kind, wide)
        prod = 1
        for x in e:
            prod *= x
        if prod * 16 < 2**63:
            return e


def draw(rng, kind, wide):
    if kind == "bytes":
        if wide:
            return [rng.choice([0, 1, rng.randrange(1 << 40), rng.randrange(1 << 20), 1 << 30])]
        return [rng.choice([0, 4, 8, 8, 16, 32, 32, 64, 100, 128])]
    dims = {"2d": 2, "3d": 3, "bhwc": 4}[kind]
    small = [0, 1, 1, 2, 2, 3, 4, 4, 8, 16]
    if kind == "bhwc":
        if wide:
            e = [rng.choice([1, 2, rng.randrange(1 << 12)]) for _ in range(dims)]
            e[rng.randrange(dims)] = rng.choice([0, I32, rng.randrange(I32)])
            return e
        return [rng.choice(small) if rng.random() < 0.95 else 0 for _ in range(dims)]
    if wide:
        # Extents up to uint32's, so that element counts wrap at 2^32.
        return [rng.choice([0, 1, 2, 3, 1 << 16, (1 << 16) + 1, 65535, rng.randrange(1 << 17), rng.randrange(U32 + 1), U32])
                for _ in range(dims)]
    return [rng.choice(small) for _ in range(dims)]


def deps_lists(rng, lives, p):
    """A dependency graph: record i feeds some records that start after it."""
    n = len(lives)
    out = []
    for i in range(n):
        kids = [j for j in range(n) if j != i and lives[j][0] >= lives[i][0] and rng.random() < p]
        if rng.random() < 0.05 and n > 1:
            kids.append(rng.randrange(n))  # a cycle or a self loop now and then
        if rng.random() < 0.05 and kids:
            kids.append(kids[0])  # a repeated child
        out.append(kids)
    return out


def reuse_lists(rng, n, p):
    """A symmetric reallocation graph, lists ascending without repeats."""
    adj = [set() for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < p:
                adj[i].add(j)
                adj[j].add(i)
    return [sorted(a) for a in adj]


def case(rng, name, kind, n, style, wide, shuffle, graph=None):
    lives = lifetimes(rng, n, style)
    rows = [(extents(rng, kind, wide), f, l) for f, l in lives]
    lists = None
    if graph == "deps":
        lists = deps_lists(rng, lives, min(0.5, 3 / max(1, n)))
    elif graph == "reuse":
        lists = reuse_lists(rng, n, rng.choice([0.1, 0.3, 0.7]))
    order = list(range(n))
    if shuffle:
        rng.shuffle(order)
    pos = {old: new for new, old in enumerate(order)}
    head = {"bytes": "size", "2d": "x,y", "3d": "x,y,z", "bhwc": "b,h,w,c"}[kind]
    head += ",first_task,last_task"
    elem = None
    if kind != "bytes" and rng.random() < 0.6:
        elem = rng.choice([1, 2, 4]) if kind == "bhwc" else rng.choice([4, 8, 16])
        head += ",element_size"
    if graph:
        head += "," + graph
    lines = ["# random case %s (scripts/litert-memory/gen.py): %s, n=%d, %s lifetimes%s%s%s" % (
        name, kind, n, style, ", wide sizes" if wide else "", ", shuffled" if shuffle else "",
        ", " + graph + " graph" if graph else ""), head]
    for old in order:
        ext, f, l = rows[old]
        cols = [str(e) for e in ext] + [str(f), str(l)]
        if elem is not None:
            cols.append(str(elem))
        if lists is not None:
            # reuse lists ascending, as the format asks; deps as drawn.
            ids = [pos[j] for j in lists[old]]
            cols.append(" ".join(str(x) for x in (sorted(ids) if graph == "reuse" else ids)))
        lines.append(",".join(cols))
    return "\n".join(lines) + "\n"


def main():
    binary, out = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 23
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    cases = []
    k = 0
    for kind, graph in [("2d", None), ("3d", None), ("bhwc", None), ("bytes", None), ("bytes", "reuse"), ("bytes", "deps")]:
        for style, n, wide, shuffle in [("chain", 1, False, False), ("ties", 12, False, False), ("ties", 40, False, True),
                                        ("wide", 60, False, False), ("wide", 25, True, False), ("ties", 120, False, True),
                                        ("wide", 300, rng.random() < 0.5, rng.random() < 0.5)]:
            if graph and n > 120:
                n = 120
            k += 1
            name = "%02d-%s%s-%s-n%d" % (k, kind, "-" + graph if graph else "", style, n)
            # LiteRT's MINCOSTFLOW takes minutes on sizes near 2^40.
            skip = ["--skip", "min-cost-flow"] if kind == "bytes" and wide else []
            cases.append((name, case(rng, name, kind, n, style, wide, shuffle, graph), skip))
    for name, text, skip in cases:
        csv = os.path.join(out, name + ".csv")
        with open(csv, "w") as f:
            f.write(text)
        res = subprocess.run([binary] + skip + [name + ".csv"], cwd=out, check=True, capture_output=True, text=True)
        with open(os.path.join(out, name + ".out"), "w") as f:
            f.write(res.stdout)
    print("%d cases in %s" % (len(cases), out))


if __name__ == "__main__":
    main()
