#!/usr/bin/env python3
"""Cut and rescale rubato task traces (docs/trace-format.md).

Reads versions 1 and 2; writes version 1 (version 2's task code addresses and
module table, which only `rubato trace export` uses, are left out), which
every reader of rubato reads.

    trace_tool.py info FILE
    trace_tool.py cut FILE --from NS --to NS -o OUT     keep the tasks created in [from, to]
    trace_tool.py scale FILE --factor K -o OUT          every time x K (work and structure alike)

`cut`: FROM and TO are absolute CLOCK_MONOTONIC nanoseconds (as the stub
cuttlefish.h of build_programs.sh prints them at Cuttlefish's start() and
stop()); the trace's times are relative to its header's origin_ns. A task is
kept when its task record's time (creation, or the start of an implicit task)
lies in the window; its segments and waits go with it, those of dropped tasks
are dropped. The initial task is always kept (the replay skips it; explicit
tasks may name it as their parent). Parallel regions opened inside the window are kept whole.

`scale`: multiplies every task, segment and wait time and every segment
duration by K (origin unchanged): the replay's work grows by K with the
structure unchanged. Used to bring the replayed baseline to a measured time.

Standard library only; the output is a valid trace (its end record counts the
records kept, dropped records carried over).
"""
import argparse
import struct
import sys

HEADER = 128
BLOCK = struct.Struct("<4sIII")
TASK = struct.Struct("<QQIIQ")      # after the type byte: id, parent, creator, flags, time
TASK_V2 = struct.Struct("<QQIIQQ")  # the same + code address (version 2)
MODULES = struct.Struct("<4sII")    # version 2's module table: magic TMOD, count, bytes
SEGMENT = struct.Struct("<QIBBBQQ")  # id, worker, start, end, level, start time, duration
WAIT = struct.Struct("<QIBBQ")      # id, worker, kind, phase, time
END = struct.Struct("<4sIQQ")
SIZES = {1: 1 + TASK.size, 2: 1 + SEGMENT.size, 3: 1 + WAIT.size}


def read(path):
    """(header bytes, [(worker, [(type, fields)])], dropped)."""
    data = open(path, "rb").read()
    if data[:8] != b"RBTRACE\0":
        sys.exit(f"trace_tool: {path}: not a rubato trace (magic)")
    version, hsize = struct.unpack_from("<II", data, 8)
    if version not in (1, 2) or hsize != HEADER:
        sys.exit(f"trace_tool: {path}: version {version}, header {hsize}: versions 1 and 2 are known")
    task = TASK if version == 1 else TASK_V2
    pos, blocks = HEADER, []
    while True:
        magic = data[pos:pos + 4]
        if magic == b"TMOD":
            pos += MODULES.size + MODULES.unpack_from(data, pos)[2]
            continue
        if magic == b"TEND":
            _, _, written, dropped = END.unpack_from(data, pos)
            break
        if magic != b"TBLK":
            sys.exit(f"trace_tool: {path}: offset {pos}: expected a block or the end record")
        _, worker, count, size = BLOCK.unpack_from(data, pos)
        pos += BLOCK.size
        end, recs = pos + size, []
        while pos < end:
            kind = data[pos]
            body = {1: task, 2: SEGMENT, 3: WAIT}.get(kind)
            if body is None:
                sys.exit(f"trace_tool: {path}: offset {pos}: record type {kind}")
            recs.append((kind, list(body.unpack_from(data, pos + 1))[:5 if kind == 1 else None]))
            pos += 1 + body.size
        if len(recs) != count:
            sys.exit(f"trace_tool: {path}: block at {pos - size}: {len(recs)} records, header says {count}")
        blocks.append((worker, recs))
    if sum(len(r) for _, r in blocks) != written:
        sys.exit(f"trace_tool: {path}: end record counts {written} records, blocks hold another number")
    header = data[:8] + struct.pack("<I", 1) + data[12:HEADER]  # written as version 1
    return header, blocks, dropped


def write(path, header, blocks, dropped):
    total = 0
    with open(path, "wb") as f:
        f.write(header)
        for worker, recs in blocks:
            if not recs:
                continue
            payload = b"".join(bytes([k]) + {1: TASK, 2: SEGMENT, 3: WAIT}[k].pack(*v) for k, v in recs)
            f.write(BLOCK.pack(b"TBLK", worker, len(recs), len(payload)))
            f.write(payload)
            total += len(recs)
        f.write(END.pack(b"TEND", 0, total, dropped))
    return total


def origin_ns(header):
    return struct.unpack_from("<Q", header, 16)[0]


def cut(blocks, lo, hi):
    keep = set()
    for _, recs in blocks:
        for kind, v in recs:
            if kind == 1 and (lo <= v[4] <= hi or v[3] & 4):  # the initial task always (not replayed)
                keep.add(v[0])
    return [(w, [(k, v) for k, v in recs if v[0] in keep]) for w, recs in blocks], len(keep)


def scale(blocks, factor):
    def r(x):
        return int(round(x * factor))
    out = []
    for w, recs in blocks:
        new = []
        for k, v in recs:
            v = list(v)
            if k == 1:
                v[4] = r(v[4])
            elif k == 2:
                end = r(v[5] + v[6])
                v[5] = r(v[5])
                v[6] = end - v[5]  # keep segment ends consistent with the scaled start times
            else:
                v[4] = r(v[4])
            new.append((k, v))
        out.append((w, new))
    return out


def info(header, blocks, dropped):
    tasks = [v for _, recs in blocks for k, v in recs if k == 1]
    segs = [v for _, recs in blocks for k, v in recs if k == 2]
    flags = {"explicit": 1, "implicit": 2, "initial": 4}
    counts = {n: sum(1 for t in tasks if t[3] & b) for n, b in flags.items()}
    busy = sum(s[6] for s in segs)
    first = min((s[5] for s in segs), default=0)
    last = max((s[5] + s[6] for s in segs), default=0)
    workers = struct.unpack_from("<I", header, 24)[0]
    return (f"tasks {len(tasks)} ({counts}), segments {len(segs)}, busy {busy / 1e9:.4f} s, "
            f"span {(last - first) / 1e9:.4f} s, max_workers {workers}, dropped {dropped}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("info")
    p.add_argument("trace")
    p = sub.add_parser("cut")
    p.add_argument("trace")
    p.add_argument("--from", dest="lo", type=int, required=True, help="CLOCK_MONOTONIC ns")
    p.add_argument("--to", dest="hi", type=int, required=True, help="CLOCK_MONOTONIC ns")
    p.add_argument("-o", "--out", required=True)
    p = sub.add_parser("scale")
    p.add_argument("trace")
    p.add_argument("--factor", type=float, required=True)
    p.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    header, blocks, dropped = read(a.trace)
    if a.cmd == "info":
        print(info(header, blocks, dropped))
    elif a.cmd == "cut":
        o = origin_ns(header)
        if a.hi < a.lo or a.lo < o:
            sys.exit(f"trace_tool: window [{a.lo}, {a.hi}] is not after the trace's origin {o}")
        kept, n = cut(blocks, a.lo - o, a.hi - o)
        write(a.out, header, kept, dropped)
        print(f"kept {n} tasks: {info(header, kept, dropped)}")
    else:
        if not a.factor > 0:
            sys.exit("trace_tool: --factor must be > 0")
        write(a.out, header, scale(blocks, a.factor), dropped)


if __name__ == "__main__":
    main()
