#!/usr/bin/env python3
"""Runs Cuttlefish's six OpenMP programs (built by build_programs.sh) with and
without rubato's OMPT tool, checks that their results are the same, and stores
the task traces recorded under rubato as data (traces/).

For each program, with the same input and environment:
  1. a plain run and a run under rubato (RUBATO_POLICY=baseline) at 2 threads:
     their verification lines (VERIFY below) must be equal;
  2. the recording: a run under rubato with RUBATO_TRACE at RECORD_THREADS, and a
     plain run at the same thread count: verification lines equal again.
The recorded trace is cut (trace_tool.py cut) to the window between the stub
cuttlefish::start() and stop() (what Cuttlefish's TIME column measured) and
stored as traces/<program>.trace (trace format version 1). traces/manifest.json
and traces/README.md say what made each one.

Why heatIR and sorIR are recorded at 2 threads and the other four at 20: the
replay redistributes explicit tasks over the simulated workers, but an
implicit task (one per thread and parallel region: `parallel for`, UTS's
SPMD region with its own work stealing) is replayed as one task. HPCCG,
miniFE and AMG are `parallel for` programs and UTS's OpenMP version is one SPMD
region, so a 2-thread recording would keep 18 of the 20 simulated workers
idle; they are recorded with 20 threads, as Cuttlefish ran them, on this
machine's cores (oversubscribed: the segments' wall times include the time a
thread was descheduled; the replay scales the work to the measured time, and
what is left is imbalance between the threads, reported by replay.py).
KMP_BLOCKTIME=0 in every run (plain or not): a waiting libomp thread sleeps at
once instead of spinning on a core another thread needs.

    benchmarks/cuttlefish/record_traces.py [--bin /tmp/cf-build/bin] [--tool .../librubato_ompt.so]
                                           [--programs heatIR,...] [--work /tmp/cf-rec]
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import trace_tool  # noqa: E402

# program -> (arguments, threads for the recording, verification line pattern)
# The share of the start/stop window kept (KEEP, from its start): HPCCG's and miniFE's 150 and
# ~100 CG iterations, AMG's 18 PCG iterations (1134 regions) at 20 threads make 3-3.5 MB traces;
# their first 60 % (AMG: 50 %) are kept (alike iterations).
KEEP = {"HPCCG": 0.6, "miniFE": 0.6, "amg": 0.5}
PROGRAMS = {
    "heatIR": (["2048", "2048", "20"], 2, r"maximal absolute error|maximal relative error|Mean absolute error"),
    "sorIR": (["4096", "2"], 2, r"SOR checksum"),
    "HPCCG": (["64", "64", "64"], 20, r"Residual|Final residual"),
    "miniFE": (["-nx", "40", "-ny", "40", "-nz", "40"], 20, r"Iteration = |Final Resid Norm"),
    "amg": (["-problem", "1", "-n", "32", "32", "32"], 20, r"^Iterations = |Final Relative Residual Norm"),
    "uts": (["-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"], 20, r"Tree size"),
}
# The artifact's inputs (AE/scripts/experiment_*_haswell*.sh run the programs without arguments,
# UTS with $T1XXL; the defaults are in the sources).
ARTIFACT_INPUT = {
    "heatIR": "nx = ny = 32768, nt = 200 (heat.cpp)",
    "sorIR": "size 32768, 200 iterations (sor.cpp)",
    "HPCCG": "256 x 256 x 1024, 150 iterations (HPCCG/main.cpp)",
    "miniFE": "-nx 256 -ny 512 -nz 512 (miniFE/openmp/utils/utils.cpp)",
    "amg": "-problem 1 -n 256 256 1024 (AMG/test/amg.c)",
    "uts": "T1XXL: -t 1 -a 3 -d 15 -b 4 -r 19 (uts/sample_trees.sh), 4.2e9 nodes",
}
ENV = {"KMP_BLOCKTIME": "0"}


def run(cmd, threads, extra, cwd):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **ENV, **extra)
    for k in [k for k in env if k.startswith("RUBATO_") and k not in extra] + (
            [] if "OMP_TOOL_LIBRARIES" in extra else ["OMP_TOOL_LIBRARIES"]):
        env.pop(k, None)
    t = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t
    if p.returncode != 0:
        sys.exit(f"record: {' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout, p.stderr, wall


def verify_lines(out, pattern):
    lines = [ln.strip() for ln in out.splitlines() if re.search(pattern, ln)]
    if not lines:
        sys.exit(f"record: no verification line ({pattern}) in the output")
    return lines


def max_rel_diff(a, b):
    """Largest relative difference between the numbers of two sets of lines."""
    num = re.compile(r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?")
    xs = [float(x) for ln in a for x in num.findall(ln)]
    ys = [float(y) for ln in b for y in num.findall(ln)]
    if len(xs) != len(ys):
        return float("inf")
    return max((abs(x - y) / max(abs(x), abs(y)) for x, y in zip(xs, ys) if x != y), default=0.0)


def window(err):
    stamps = dict(re.findall(r"cuttlefish-stub: (start|stop) (\d+)", err))
    starts = [int(x) for x in re.findall(r"cuttlefish-stub: start (\d+)", err)]
    stops = [int(x) for x in re.findall(r"cuttlefish-stub: stop (\d+)", err)]
    if not starts or not stops or not stamps:
        sys.exit("record: the stub's start/stop times are missing from stderr (built by build_programs.sh?)")
    return min(starts), max(stops)


def record(name, args, work):
    cmd_args, threads, pattern = PROGRAMS[name]
    exe = os.path.join(args.bin, name)
    cmd = [exe] + cmd_args
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    tool = {"OMP_TOOL_LIBRARIES": args.tool, "RUBATO_POLICY": "baseline",
            "RUBATO_REPORT": os.path.join(d, "report-%p.json")}
    checks = []
    for n in sorted({2, threads}):
        plain, _, plain_s = run(cmd, n, {}, d)
        extra = dict(tool)
        if n == threads:
            extra["RUBATO_TRACE"] = os.path.join(d, "full.trace")
        attached, err, attached_s = run(cmd, n, extra, d)
        a, b = verify_lines(plain, pattern), verify_lines(attached, pattern)
        check = {"threads": n, "equal": a == b, "plain": a[-3:], "rubato": b[-3:],
                 "plain_s": round(plain_s, 2), "rubato_s": round(attached_s, 2)}
        if a != b:  # is the program itself nondeterministic here? a second plain run says
            again = verify_lines(run(cmd, n, {}, d)[0], pattern)
            check.update({"plain_again": again[-3:], "plain_runs_equal": again == a,
                          "max_rel_diff": max_rel_diff(a, b), "plain_max_rel_diff": max_rel_diff(a, again)})
        checks.append(check)
        if n == threads:
            lo, hi = window(err)
    header, blocks, dropped = trace_tool.read(os.path.join(d, "full.trace"))
    full_info = trace_tool.info(header, blocks, dropped)
    o = trace_tool.origin_ns(header)
    keep_to = lo + int((hi - lo) * KEEP.get(name, 1.0))
    kept, _ = trace_tool.cut(blocks, lo - o, keep_to - o)
    out = os.path.join(HERE, "traces", f"{name}.trace")
    trace_tool.write(out, header, kept, dropped)
    env_line = " ".join(f"{k}={v}" for k, v in ENV.items())
    return {
        "program": name, "threads": threads, "input": " ".join(cmd_args), "artifact_input": ARTIFACT_INPUT[name],
        "command": f"{env_line} OMP_NUM_THREADS={threads} OMP_TOOL_LIBRARIES=librubato_ompt.so "
                   f"RUBATO_POLICY=baseline RUBATO_TRACE=full.trace {name} {' '.join(cmd_args)}",
        "window_s": round((hi - lo) / 1e9, 4), "kept_share_of_window": KEEP.get(name, 1.0), "full_trace": full_info,
        "stored_trace": trace_tool.info(header, kept, dropped), "bytes": os.path.getsize(out), "checks": checks,
    }


def git(*a):
    return subprocess.run(["git", "-C", REPO, *a], capture_output=True, text=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="/tmp/cf-build/bin")
    ap.add_argument("--tool", default=os.path.join(REPO, "build", "default", "frontends", "ompt", "librubato_ompt.so"))
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--work", default="/tmp/cf-rec")
    args = ap.parse_args()
    os.makedirs(os.path.join(HERE, "traces"), exist_ok=True)
    manifest_path = os.path.join(HERE, "traces", "manifest.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {"programs": {}}
    built = open(os.path.join(os.path.dirname(args.bin), "build.log")).readline().strip()
    manifest.update({
        "cuttlefish": built, "build": "benchmarks/cuttlefish/build_programs.sh (clang-16, libomp-16)",
        "rubato": git("rev-parse", "HEAD") + (" + uncommitted changes" if git("status", "--porcelain") else ""),
        "date": datetime.date.today().isoformat(), "machine": f"{os.cpu_count()} CPUs, " + os.uname().release,
        "environment": ENV,
    })
    for name in args.programs.split(","):
        r = record(name, args, args.work)
        manifest["programs"][name] = r
        ok = all(c["equal"] for c in r["checks"])
        print(f"{name}: {'output equal' if ok else 'OUTPUT DIFFERS'}, window {r['window_s']} s, "
              f"{r['bytes']} bytes, {r['stored_trace']}")
        for c in r["checks"]:
            print(f"   {c['threads']} threads: plain {c['plain_s']} s, rubato {c['rubato_s']} s, "
                  f"{'equal' if c['equal'] else 'differ'}: {c['rubato'][-1]}")
            if not c["equal"]:
                print(f"      two plain runs {'equal' if c['plain_runs_equal'] else 'differ'} "
                      f"(by {c['plain_max_rel_diff']:.2g}); rubato vs plain by {c['max_rel_diff']:.2g}")
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
