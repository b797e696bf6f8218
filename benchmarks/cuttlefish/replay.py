#!/usr/bin/env python3
"""rubato's policies on Cuttlefish's machine, replaying the programs' own task traces.

The recorded traces (traces/, record_traces.py: Cuttlefish's OpenMP programs
built by build_programs.sh, run under rubato's OMPT tool on this machine) are
replayed with `rubato simulate` on the fitted profile
(power/profiles/haswell-e5-2650v3.json) at 20 workers, for baseline, slack and
eco, with each program's fitted b_c and b_u (programs.json, as compare.py
passes them) and compare.py's core ladder, in the libomp-like scheduler model
(--model omp).

Scale: a small recorded input runs for well under a second; every time in the
trace is multiplied by one factor (trace_tool.py scale), chosen so that the
replayed baseline takes the measured time at 2.3/3.0 GHz (the mean of the
program's two pinned 2.3/3.0 runs, mapping.csv: logs/mapping and
logs/timeline). A few baseline replays find it (the replay is close to, not
exactly, linear in the factor: the scheduler's choices move with the task
lengths); the final one must be within 0.5 %.

Energy: as compare.py (its docstring): the simulated joules plus the
program's activity energy from programs.json, less what the profile's busy
power already charges for instructions.

    benchmarks/cuttlefish/replay.py [--rubato build/default/cli/rubato] [--out DIR] [--programs ...]
                                    [--commands]   (prints the tables of ANALYSIS.md §7.4)
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (measured runs, fit.py's predictions, activity energy, ladder)
import trace_tool  # noqa: E402

PROFILE = compare.PROFILE
POLICIES = compare.POLICIES
PROGRAMS = compare.PROGRAMS
TOLERANCE = 0.005


def measured_reference_s(program):
    """Mean of the program's pinned 2.3/3.0 GHz runs (logs/mapping and logs/timeline), measured."""
    with open(os.path.join(HERE, "mapping.csv")) as f:
        ts = [float(r["time_s"]) for r in csv.DictReader(f)
              if r["program"] == program and r["core_ghz"] == "2.3" and r["uncore_ghz"] == "3.0"]
    if len(ts) != 2:
        sys.exit(f"replay: expected two pinned 2.3/3.0 runs of {program} in mapping.csv, found {len(ts)}")
    return statistics.mean(ts)


def simulate(args, trace, prog, policies, out):
    cmd = [args.rubato, "simulate", "--profile", PROFILE, "--workers", "20", "--trace", trace, "--model", "omp",
           "--core-sensitivity", f"{prog['beta_core']}", "--uncore-sensitivity", f"{prog['beta_uncore']}",
           "--freqs", compare.LADDER, "--policy", ",".join(policies), "--seed", "1", "--out", out + "/", "--quiet"]
    subprocess.run(cmd, check=True)
    return cmd, {p: compare.load_json(os.path.join(out, f"sim-{PROFILE}-w20-{p}-t0.json")) for p in policies}


def scaled_trace(args, name, prog, target):
    """Writes OUT/name/scaled.trace, scaled so that baseline takes `target` s; returns (path, factor)."""
    src = os.path.join(HERE, "traces", f"{name}.trace")
    header, blocks, dropped = trace_tool.read(src)
    out = os.path.join(args.out, name)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "scaled.trace")
    factor, trace = 1.0, src
    for _ in range(6):
        _, r = simulate(args, trace, prog, ["baseline"], os.path.join(out, "scale"))
        wall = r["baseline"]["wall_s"]
        if trace != src and abs(wall / target - 1) <= TOLERANCE:
            return path, factor
        factor *= target / wall
        trace_tool.write(path, header, trace_tool.scale(blocks, factor), dropped)
        trace = path
    sys.exit(f"replay: {name}: baseline {wall:.3f} s after scaling, target {target:.3f} s")


def run_program(args, name, prog, profile):
    target = measured_reference_s(name)
    trace, factor = scaled_trace(args, name, prog, target)
    cmd, reports = simulate(args, trace, prog, POLICIES, os.path.join(args.out, name))
    rows = {}
    for p, r in reports.items():
        x = r["external"]
        e = r["energy"]["joules"] + compare.activity_j(prog, profile, x["sim.busy_core_cycles"])
        busy = x["sim.busy_core_cycles"] / (20 * 2.3e9 * r["wall_s"])  # baseline: the share of core time busy
        rows[p] = {"time": r["wall_s"], "energy": e, "edp": e * r["wall_s"], "source": r["energy"]["source"],
                   "uncore_ghz": x.get("sim.uncore_mean_hz", 0) / 1e9,
                   "ceiling_ghz": x.get("sim.core_ceiling_mean_hz", 0) / 1e9, "busy": busy}
    return {"target": target, "factor": factor, "cmd": cmd, "rows": rows}


def fmt_measured(m, key, scale=1.0, digits=0):
    return f"{m[key][0] / scale:.{digits}f} ± {m[key][1] / scale:.{digits}f}"


def print_tables(results, manifest):
    print("| program | what | source | J | s | EDP kJ·s | E / default | T / default | EDP / default | "
          "core (eco: mean ceiling) / uncore GHz | baseline busy share |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (meas, res, model) in results.items():
        d = meas["default"]
        dj, ds, dedp = d["energy"][0], d["time"][0], d["edp"][0]

        def line(label, source, j, s, edp, jtxt=None, stxt=None, etxt=None, levels="–", busy="–"):
            print(f"| {name} | {label} | {source} | {jtxt or f'{j:.0f}'} | {stxt or f'{s:.2f}'} | "
                  f"{etxt or f'{edp / 1e3:.0f}'} | {j / dj:.3f} | {s / ds:.3f} | {edp / dedp:.3f} | {levels} | {busy} |")
        for mode, label in (("default", "default"), ("combined", "Cuttlefish combined")):
            m = meas[mode]
            line(label, "measured (RAPL package) [Cuttlefish-data]", m["energy"][0], m["time"][0], m["edp"][0],
                 fmt_measured(m, "energy"), fmt_measured(m, "time", digits=2), fmt_measured(m, "edp", 1e3))
        for mode, label, how in (("default", "default", "2.3/3.0"), ("combined", "Cuttlefish combined", "its settings")):
            m = model[mode]
            line(label, f"modelled, fit.py ({how})", m["energy"], m["time"], m["edp"])
        for p in POLICIES:
            r = res["rows"][p]
            lv = f"{r['ceiling_ghz']:.2f} / {r['uncore_ghz']:.2f}" if p == "eco" else f"2.30 / {r['uncore_ghz']:.2f}"
            line(f"rubato {p}", "modelled, trace replay (replay.py)", r["energy"], r["time"], r["edp"],
                 levels=lv, busy=f"{r['busy']:.2f}" if p == "baseline" else "–")
    print(f"\nGeometric means over the {len(results)} programs, against the measured default:\n")
    print("| what | source | energy | time | EDP |")
    print("|---|---|---|---|---|")
    cols = [("Cuttlefish combined", "measured (RAPL package) [Cuttlefish-data]",
             lambda m, r, x: (m["combined"]["energy"][0], m["combined"]["time"][0], m["combined"]["edp"][0])),
            ("Cuttlefish combined", "modelled, fit.py (its settings)",
             lambda m, r, x: (x["combined"]["energy"], x["combined"]["time"], x["combined"]["edp"]))]
    for p in POLICIES:
        cols.append((f"rubato {p}", "modelled, trace replay",
                     lambda m, r, x, p=p: (r["rows"][p]["energy"], r["rows"][p]["time"], r["rows"][p]["edp"])))
    compare.print_geomean_rows(cols, results)
    print("\nrubato eco (modelled, trace replay) against Cuttlefish combined, measured and as fit.py models it:\n")
    print("| program | energy / measured | time / measured | EDP / measured | energy ≤ measured at no more time | "
          "energy / modelled | time / modelled | EDP / modelled |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (meas, res, model) in results.items():
        c, e, x = meas["combined"], res["rows"]["eco"], model["combined"]
        miss = [w for w, bad in (("energy", e["energy"] > c["energy"][0]), ("time", e["time"] > c["time"][0])) if bad]
        print(f"| {name} | {e['energy'] / c['energy'][0]:.3f} | {e['time'] / c['time'][0]:.3f} | "
              f"{e['edp'] / c['edp'][0]:.3f} | {'met' if not miss else 'not met (' + ', '.join(miss) + ')'} | "
              f"{e['energy'] / x['energy']:.3f} | {e['time'] / x['time']:.3f} | {e['edp'] / x['edp']:.3f} |")
    print("\nThe replays (target: the mean measured 2.3/3.0 GHz time; factor: every trace time multiplied by it):\n")
    print("| program | trace | recorded at | input (artifact's) | target s | factor | baseline s |")
    print("|---|---|---|---|---|---|---|")
    for name, (_, res, _) in results.items():
        m = manifest["programs"][name]
        print(f"| {name} | {m['bytes'] / 1e6:.2f} MB | {m['threads']} threads | `{m['input']}` ({m['artifact_input']}) | "
              f"{res['target']:.2f} | {res['factor']:.4g} | {res['rows']['baseline']['time']:.2f} |")


def check(args, programs, profile):
    failures = 0
    for name in args.programs.split(","):
        res = run_program(args, name, programs[name], profile)
        for p, r in res["rows"].items():
            ok = r["source"] == f"simulated:{PROFILE}" and r["time"] > 0 and r["energy"] > 0
            if p == "baseline":
                ok = ok and abs(r["time"] / res["target"] - 1) <= 0.01
            print(f"{name} {p}: {r['time']:.3f} s, {r['energy']:.0f} J ({r['source']}), target {res['target']:.3f} s: "
                  f"{'ok' if ok else 'FAILED'}")
            failures += not ok
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rubato", default=os.path.join(REPO, "build", "default", "cli", "rubato"))
    ap.add_argument("--out", default=os.path.join(REPO, "build", "default", "cuttlefish-replay"))
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--commands", action="store_true", help="print the final simulate command of each program")
    ap.add_argument("--check", action="store_true",
                    help="no tables: exit 1 unless every report is a simulated one of the profile and baseline "
                         "takes the measured 2.3/3.0 time within 1 %% (the ctest Sim.Cuttlefish.ReplayRecordedTrace)")
    args = ap.parse_args()
    if not os.access(args.rubato, os.X_OK):
        sys.exit(f"replay: {args.rubato} not built (cmake --build build/default --target rubato)")
    programs = compare.load_json(os.path.join(HERE, "programs.json"))["programs"]
    profile = compare.load_json(os.path.join(REPO, "power", "profiles", PROFILE + ".json"))
    manifest = compare.load_json(os.path.join(HERE, "traces", "manifest.json"))
    if args.check:
        sys.exit(check(args, programs, profile))
    model = compare.model_predictions()
    results = {}
    for name in args.programs.split(","):
        meas = {mode: compare.measured(name, mode) for mode in ("default", "combined")}
        results[name] = (meas, run_program(args, name, programs[name], profile), model[name])
    print_tables(results, manifest)
    if args.commands:
        print("\n```")
        for _, res, _ in results.values():
            print(" ".join(res["cmd"]))
        print("```")


if __name__ == "__main__":
    main()
