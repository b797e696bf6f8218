#!/usr/bin/env python3
"""rubato's policies on Cuttlefish's machine, against Cuttlefish's measured runs.

For each of the six swept programs ([Cuttlefish-data]; programs.json: T0,
b_c, b_u, instructions I, transactions M, energy offset), simulates a
synthetic stand-in on the fitted profile (power/profiles/haswell-e5-2650v3.json)
at 20 workers with `rubato simulate`, for the policies baseline, slack and
eco, and prints one table beside the measured default and the measured
Cuttlefish "combined" runs (policy_runs.csv, logs/T_inv/T_20, ten runs each).

The stand-in (a modelling choice, not a recording): parallel regions one
after another, each a parallel loop of TASKS iterations of equal work
(jitter +-JITTER) taking REGION s at the reference setting on 20 workers;
every task has the program's fitted shares b_c and b_u. The number of regions
is T0 / REGION; the iteration work is then scaled once so that the baseline
(2.3 GHz core, uncore at 3.0 GHz) takes T0 (the fit's, programs.json). The
simulated user gives eco the program's b_c (--core-sensitivity, as
RUBATO_CORE_SENSITIVITY would); b_u it reads from the simulated
memory-transaction counters (the profile's counter relation).

Energy. `rubato simulate` charges the profile: per core busy_w / idle_w at
its frequency, the uncore's power at its level over time. fit.py's model
(RESULTS.md) has, besides that machine part, the program's activity energy:
e_i * I + e_m * M + offset, the same at every setting, and charges
instructions at e_i each rather than at the profile's reference IPC. The
modelled joules here are therefore

    E = E_sim + e_i * I + e_m * M + offset - e_i * IPC_ref * (busy core cycles)

(e_i, e_m, IPC_ref from the profile; busy core cycles from the report's
sim.busy_core_cycles), which is fit.py's model on the simulated timeline: at
2.3/3.0 with every core busy it is exactly RESULTS.md's "model at 2.3/3.0".
Beside the measured runs it prints fit.py's model of them (RESULTS.md): the
default as the model at 2.3/3.0 GHz (the hardware's own uncore scaling under
the default is not modelled), Cuttlefish's combined runs given the settings it
chose. The model underestimates Cuttlefish's measured energy (RESULTS.md:
-0.7 to -6.4 % on these six), so eco against the *modelled* Cuttlefish is the
like-for-like comparison.
Every figure says whether it is measured (by what) or modelled (by which
profile). Standard library only.

    benchmarks/cuttlefish/compare.py [--rubato build/default/cli/rubato] [--out DIR] [--no-commands]
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PROFILE = "haswell-e5-2650v3"
PROGRAMS = ["HPCCG", "amg", "heatIR", "miniFE", "sorIR", "uts"]
POLICIES = ["baseline", "slack", "eco"]
# Every other core level of the profile from the top, and the slowest (a
# tempo ladder holds at most 8 levels); fixed before any run.
LADDER = "2.3GHz,2.1GHz,1.9GHz,1.7GHz,1.5GHz,1.3GHz,1.2GHz"
T95_9 = 2.262  # Student's t, 95 %, 9 degrees of freedom (ten runs)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def measured(program, mode):
    """Mean and 95 % CI half-width of time, energy and EDP over the ten runs."""
    rows = []
    with open(os.path.join(HERE, "policy_runs.csv")) as f:
        for r in csv.DictReader(f):
            if r["program"] == program and r["mode"] == mode and r["log_set"] == "T_inv/T_20":
                rows.append((float(r["time_s"]), float(r["energy_j"])))
    if len(rows) != 10:
        sys.exit(f"compare: expected 10 {mode} runs of {program} in policy_runs.csv, found {len(rows)}")

    def mean_ci(xs):
        return statistics.mean(xs), T95_9 * statistics.stdev(xs) / math.sqrt(len(xs))

    return {"time": mean_ci([t for t, _ in rows]), "energy": mean_ci([e for _, e in rows]),
            "edp": mean_ci([t * e for t, e in rows])}


def simulate(args, program, spec, b_c, b_u, policies, out):
    cmd = [args.rubato, "simulate", "--profile", PROFILE, "--workers", "20", "--dag", spec,
           "--core-sensitivity", f"{b_c}", "--uncore-sensitivity", f"{b_u}", "--freqs", args.ladder,
           "--policy", ",".join(policies), "--seed", "1", "--out", out + "/", "--quiet"]
    subprocess.run(cmd, check=True)
    reports = {}
    for p in policies:
        path = os.path.join(out, f"sim-{PROFILE}-w20-{p}-t0.json")
        reports[p] = load_json(path)
    return cmd, reports


def spec_for(t0, iter_s, args):
    regions = max(1, round(t0 / args.region))
    return f"loop:{args.tasks}:grain=1:iter={iter_s * 1e9:.9g}ns:jitter={args.jitter}:rep={regions}"


def activity_j(prog, profile, busy_cycles):
    """fit.py's per-program energy beyond the machine part, less what the profile's busy power already holds."""
    e_i = profile["instruction_energy_j"]
    e_m = profile["memory_transaction_energy_j"]
    ipc = profile["reference_ipc"]
    return e_i * prog["instructions"] + e_m * prog["transactions"] + prog["energy_offset_j"] - e_i * ipc * busy_cycles


def run_program(args, name, prog, profile):
    t0, b_c, b_u = prog["t0_s"], prog["beta_core"], prog["beta_uncore"]
    iter_s = args.region * 20 / args.tasks
    out = os.path.join(args.out, name)
    # Pass 1: the baseline at the nominal work; pass 2: scaled so that the baseline takes T0.
    _, first = simulate(args, name, spec_for(t0, iter_s, args), b_c, b_u, ["baseline"], out + "/scale")
    iter_s *= t0 / first["baseline"]["wall_s"]
    spec = spec_for(t0, iter_s, args)
    cmd, reports = simulate(args, name, spec, b_c, b_u, POLICIES, out)
    rows = {}
    for p, r in reports.items():
        x = r["external"]
        e = r["energy"]["joules"] + activity_j(prog, profile, x["sim.busy_core_cycles"])
        rows[p] = {"time": r["wall_s"], "energy": e, "edp": e * r["wall_s"], "sim_j": r["energy"]["joules"],
                   "source": r["energy"]["source"], "uncore_ghz": x.get("sim.uncore_mean_hz", 0) / 1e9,
                   "ceiling_ghz": x.get("sim.core_ceiling_mean_hz", 0) / 1e9}
    return spec, cmd, rows


def model_predictions():
    """fit.py's model of the measured runs, per swept program: the default as
    the model at 2.3/3.0 GHz, Cuttlefish's combined runs given the settings it
    chose (the same figures as RESULTS.md)."""
    sys.path.insert(0, HERE)
    import fit  # beside this script; imported here so that --help needs no data
    progs = fit.sweep_points()
    m = fit.fit_machine(progs)
    runs, slabs = fit.policy_data()
    vprogs = fit.validation_programs(m, progs, runs)
    combined = fit.validate_mode(m, vprogs, runs, slabs, "combined")
    out = {}
    for name in fit.SWEPT:
        t = fit.time_of(vprogs[name], fit.FC0, fit.FU0, m["knee"])
        e = fit.energy_of(m, vprogs[name], fit.FC0, fit.FU0, t)
        tc, ec = combined[name]["t_pred"], combined[name]["e_pred"]
        out[name] = {"default": {"time": t, "energy": e, "edp": t * e},
                     "combined": {"time": tc, "energy": ec, "edp": tc * ec}}
    return out


def ratio(x, d):
    return x / d if d else float("nan")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def print_geomean_rows(cols, results):
    """One table row per (label, source, get): the geometric means over the
    programs (results: name -> (measured, rubato's rows, model)) of energy,
    time and EDP from get(measured, rows, model), each against the measured
    default. compare.py and replay.py print their summaries with it."""
    for label, source, get in cols:
        es, ts, ds = [], [], []
        for meas, rows, model in results.values():
            e, t, edp = get(meas, rows, model)
            d = meas["default"]
            es.append(e / d["energy"][0])
            ts.append(t / d["time"][0])
            ds.append(edp / d["edp"][0])
        print(f"| {label} | {source} | {geomean(es):.3f} | {geomean(ts):.3f} | {geomean(ds):.3f} |")


def print_tables(results):
    print("### rubato's policies (modelled) against Cuttlefish's runs (measured), 20 workers\n")
    print("Measured: ten runs each, mean ± 95 % CI, time by the Cuttlefish runtime, energy by RAPL package "
          "(both packages), [Cuttlefish-data] logs/T_inv/T_20 via policy_runs.csv. Modelled: `rubato simulate` "
          f"on simulated:{PROFILE} plus the program's activity energy from programs.json (the same at every "
          "setting; compare.py's docstring). Modelled (fit.py): the model of RESULTS.md, the default at 2.3/3.0 GHz "
          "(the hardware's uncore scaling under the default is not modelled), Cuttlefish given the settings it "
          "chose. Ratios against the measured default.\n")
    print("| program | what | source | J | s | EDP kJ·s | E / default | T / default | EDP / default | "
          "core GHz (eco: ceiling) / uncore GHz |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (meas, rows, model) in results.items():
        d = meas["default"]
        dj, ds, dedp = d["energy"][0], d["time"][0], d["edp"][0]
        for mode, label in (("default", "default"), ("combined", "Cuttlefish combined")):
            m = meas[mode]
            print(f"| {name} | {label} | measured (RAPL) | {m['energy'][0]:.0f} ± {m['energy'][1]:.0f} | "
                  f"{m['time'][0]:.2f} ± {m['time'][1]:.2f} | {m['edp'][0] / 1e3:.0f} ± {m['edp'][1] / 1e3:.0f} | "
                  f"{ratio(m['energy'][0], dj):.3f} | {ratio(m['time'][0], ds):.3f} | "
                  f"{ratio(m['edp'][0], dedp):.3f} | – |")
        for mode, label, how in (("default", "default", "fit.py at 2.3/3.0"),
                                 ("combined", "Cuttlefish combined", "fit.py, its chosen settings")):
            m = model[mode]
            print(f"| {name} | {label} | modelled ({how}) | {m['energy']:.0f} | {m['time']:.2f} | "
                  f"{m['edp'] / 1e3:.0f} | {ratio(m['energy'], dj):.3f} | {ratio(m['time'], ds):.3f} | "
                  f"{ratio(m['edp'], dedp):.3f} | – |")
        for p in POLICIES:
            r = rows[p]
            levels = f"{r['ceiling_ghz']:.2f} / {r['uncore_ghz']:.2f}" if p == "eco" else f"2.30 / {r['uncore_ghz']:.2f}"
            print(f"| {name} | rubato {p} | modelled ({r['source']} + activity) | {r['energy']:.0f} | "
                  f"{r['time']:.2f} | {r['edp'] / 1e3:.0f} | {ratio(r['energy'], dj):.3f} | "
                  f"{ratio(r['time'], ds):.3f} | {ratio(r['edp'], dedp):.3f} | {levels} |")
    print(f"\nGeometric means over the {len(results)} programs, against the measured default:\n")
    print("| what | source | energy | time | EDP |")
    print("|---|---|---|---|---|")
    cols = [("Cuttlefish combined", "measured (RAPL)", lambda m, r, x: (m["combined"]["energy"][0],
                                                                         m["combined"]["time"][0],
                                                                         m["combined"]["edp"][0])),
            ("Cuttlefish combined", "modelled (fit.py, its chosen settings)",
             lambda m, r, x: (x["combined"]["energy"], x["combined"]["time"], x["combined"]["edp"]))]
    for p in POLICIES:
        cols.append((f"rubato {p}", f"modelled (simulated:{PROFILE} + activity)",
                     lambda m, r, x, p=p: (r[p]["energy"], r[p]["time"], r[p]["edp"])))
    print_geomean_rows(cols, results)
    misses = [x["combined"]["energy"] / m["combined"]["energy"][0] - 1 for m, _, x in results.values()]
    print("\nPer program, rubato eco (modelled) against Cuttlefish combined: measured, and as fit.py models it "
          f"(like for like: the model's energy for Cuttlefish's runs differs from the measured by "
          f"{min(misses) * 100:+.1f} … {max(misses) * 100:+.1f} %):\n")
    print("| program | energy / measured | time / measured | EDP / measured | ≤ measured energy at no more time | "
          "energy / modelled | time / modelled | EDP / modelled |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (meas, rows, model) in results.items():
        c, e, x = meas["combined"], rows["eco"], model["combined"]
        ok = e["energy"] <= c["energy"][0] and e["time"] <= c["time"][0]
        print(f"| {name} | {e['energy'] / c['energy'][0]:.3f} | {e['time'] / c['time'][0]:.3f} | "
              f"{e['edp'] / c['edp'][0]:.3f} | {'yes' if ok else 'no'} | {e['energy'] / x['energy']:.3f} | "
              f"{e['time'] / x['time']:.3f} | {e['edp'] / x['edp']:.3f} |")


def print_commands(commands, out, show):
    path = os.path.join(out, "commands.txt")
    with open(path, "w") as f:
        f.writelines(" ".join(c) + "\n" for c in commands)
    if not show:
        print(f"\nThe simulate commands (iteration work scaled so that baseline takes T0): {path}")
        return
    print("\nCommands (one per program; the iteration work already scaled so that baseline takes T0):\n")
    print("```")
    for c in commands:
        print(" ".join(c))
    print("```")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rubato", default=os.path.join(REPO, "build", "default", "cli", "rubato"))
    ap.add_argument("--out", default=os.path.join(REPO, "build", "default", "cuttlefish-sim"))
    ap.add_argument("--ladder", default=LADDER, help="the tempo ladder (--freqs); default: " + LADDER)
    ap.add_argument("--region", type=float, default=0.02, help="seconds per parallel region at the reference")
    ap.add_argument("--tasks", type=int, default=400, help="iterations (tasks) per region")
    ap.add_argument("--jitter", type=float, default=0.1, help="task work x U[1-j, 1+j]")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--no-commands", action="store_true",
                    help="name the file with the simulate commands (OUT/commands.txt) instead of printing them")
    args = ap.parse_args()
    if not os.access(args.rubato, os.X_OK):
        sys.exit(f"compare: {args.rubato} not built (cmake --build build/default --target rubato)")
    programs = load_json(os.path.join(HERE, "programs.json"))["programs"]
    profile = load_json(os.path.join(REPO, "power", "profiles", PROFILE + ".json"))
    model = model_predictions()
    results, commands = {}, []
    for name in args.programs.split(","):
        meas = {mode: measured(name, mode) for mode in ("default", "combined")}
        _, cmd, rows = run_program(args, name, programs[name], profile)
        results[name] = (meas, rows, model[name])
        commands.append(cmd)
    print_tables(results)
    print_commands(commands, args.out, not args.no_commands)


if __name__ == "__main__":
    main()
