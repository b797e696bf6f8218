#!/usr/bin/env python3
"""Markdown tables of factor_sweep.sh: HERMES (and workpath/workload) against
baseline with one factor changed at a time.

Reads OUT_DIR/runs/<experiment>/<setting>/<input>/*.json (rubato simulate
reports) and, with --emulated FILE, a `rubato compare --json` of an emulated
run of the same kernels for the simulator/emulator table. Standard library only.

    factor_tables.py OUT_DIR [--emulated COMPARE_JSON] > tables.md

Cell format: energy saving % / time loss % / EDP ratio, normalised to the
baseline of the same input, setting and worker count (positive saving = less
energy, positive loss = slower). "core" is the energy saving of the cores
alone (the profile's constant uncore left out).
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

KERNELS = ["knn", "ray", "sort", "compare", "hull"]


def load_runs(out):
    """(experiment, setting, input) -> (workers, policy) -> list of per-run figures."""
    runs = defaultdict(lambda: defaultdict(list))
    for path in glob.glob(os.path.join(out, "runs", "*", "*", "*", "*.json")):
        exp, setting, inp = path.split(os.sep)[-4:-1]
        r = json.load(open(path))
        busy = [sum(w["busy_s_at_level"]) for w in r["workers"]]
        slow = [sum(w["busy_s_at_level"][1:]) for w in r["workers"]]
        ext = r.get("external", {})
        runs[(exp, setting, inp)][(r["workers_requested"], r["policy"]["name"])].append({
            "time": r["wall_s"],
            "energy": r["energy"]["joules"],
            "core": ext.get("sim.core_energy_j", float("nan")),
            "uncore": ext.get("sim.uncore_energy_j", float("nan")),
            "slow": sum(slow) / sum(busy) if sum(busy) else 0.0,
            "steals": sum(w["steals"] for w in r["workers"]),
            "tasks": sum(w["tasks_completed"] for w in r["workers"]),
        })
    return runs


def mean(xs, key):
    return statistics.fmean(x[key] for x in xs)


def versus(group, workers, policy):
    """Figures of policy against baseline at one worker count, or None."""
    base, pol = group.get((workers, "baseline")), group.get((workers, policy))
    if not base or not pol:
        return None
    e = mean(pol, "energy") / mean(base, "energy")
    t = mean(pol, "time") / mean(base, "time")
    return {
        "saving": (1 - e) * 100, "loss": (t - 1) * 100, "edp": e * t,
        "core": (1 - mean(pol, "core") / mean(base, "core")) * 100,
        "slow": mean(pol, "slow") * 100, "steals": mean(pol, "steals"), "tasks": mean(pol, "tasks"),
        "core_share": mean(base, "core") / mean(base, "energy") * 100,
        "base_steals": mean(base, "steals"), "base_time": mean(base, "time"),
    }


def cell(v, core=True, slow=False):
    if v is None:
        return "–"
    s = f"{v['saving']:+.1f} / {v['loss']:+.1f} / {v['edp']:.3f}"
    if core:
        s += f" (core {v['core']:+.1f})"
    if slow:
        s += f" [slow {v['slow']:.0f} %]"
    return s


def inputs_of(runs, exp):
    found = {inp for (e, _, inp) in runs if e == exp}
    order = [f"trace-{k}" for k in KERNELS] + [f"pbbs-{k}" for k in KERNELS]
    return [i for i in order if i in found]


def label(inp):
    kind, k = inp.split("-", 1)
    return f"{k} ({'trace' if kind == 'trace' else 'dag'})"


def mean_row(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    keys = ["saving", "loss", "edp", "core", "slow"]
    return {k: statistics.fmean(v[k] for v in vals) for k in keys}


def mean_rows(acc, cols, fmt):
    """One bold mean row per input kind (trace, dag) present in acc[(kind, *col)]."""
    rows = []
    for kind, name in (("trace", "trace"), ("pbbs", "dag")):
        if any(acc.get((kind,) + c) for c in cols):
            rows.append([f"**mean ({name})**"] + [f"**{fmt(mean_row(acc.get((kind,) + c, [])))}**" for c in cols])
    return rows


def print_table(title, header, rows):
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")


def table_workers(runs):
    ws = [2, 4, 8, 16]
    rows, per_kind = [], defaultdict(lambda: defaultdict(list))
    for inp in inputs_of(runs, "workers"):
        g = runs[("workers", "opteron-6378", inp)]
        vs = [versus(g, w, "hermes") for w in ws]
        for w, v in zip(ws, vs):
            per_kind[inp.split("-")[0]][w].append(v)
        rows.append([label(inp)] + [cell(v, slow=True) for v in vs])
    for kind, by_w in per_kind.items():
        rows.append([f"**mean ({'trace' if kind == 'trace' else 'dag'})**"] +
                    [f"**{cell(mean_row(by_w[w]), slow=True)}**" for w in ws])
    print_table("A. Workers (hermes vs baseline; opteron-6378, 2.4/1.4 GHz, β = profile default 1)",
                ["input"] + [f"{w} workers" for w in ws], rows)
    rows = []
    for inp in inputs_of(runs, "workers"):
        g = runs[("workers", "opteron-6378", inp)]
        rows.append([label(inp)] + [cell(versus(g, w, p), core=False)
                                    for p in ("workpath", "workload") for w in (2, 16)] +
                    [f"{versus(g, 2, 'hermes')['core_share']:.0f} / {versus(g, 16, 'hermes')['core_share']:.0f}"])
    print_table("A2. Workpath and workload alone (same runs)",
                ["input", "workpath 2 w", "workpath 16 w", "workload 2 w", "workload 16 w",
                 "cores' share of baseline energy % (2 w / 16 w)"], rows)


def table_settings(runs, exp, settings, title, workers=(2, 16), policy="hermes"):
    header, cols = ["input"], []
    for s, name in settings:
        for w in workers:
            header.append(f"{name}, {w} w")
            cols.append((s, w))
    rows, acc = [], defaultdict(list)
    for inp in inputs_of(runs, exp):
        row = [label(inp)]
        for s, w in cols:
            source = ("workers", "opteron-6378") if s == "REF" else (exp, s)
            v = versus(runs.get((source[0], source[1], inp), {}), w, policy)
            acc[(inp.split("-")[0], s, w)].append(v)
            row.append(cell(v, slow=True))
        rows.append(row)
    rows += mean_rows(acc, cols, lambda v: cell(v, slow=True))
    print_table(title, header, rows)


def table_uncore(runs):
    ws = [2, 4, 8, 16]
    rows, acc = [], defaultdict(list)
    for inp in inputs_of(runs, "uncore"):
        row = [label(inp)]
        for w in ws:
            v = versus(runs[("uncore", f"uncore-{w}of32", inp)], w, "hermes")
            acc[(inp.split("-")[0], w)].append(v)
            row.append(cell(v, core=False) + (f" [cores {v['core_share']:.0f} %]" if v else ""))
        rows.append(row)
    rows += mean_rows(acc, [(w,) for w in ws], lambda v: cell(v, core=False))
    print_table("C. What-if uncore = 57.5 W × N/32 (NOT the machine; hermes vs baseline; "
                "[cores x %] = cores' share of baseline energy)", ["input"] + [f"{w} workers" for w in ws], rows)
    rows = []
    for inp in inputs_of(runs, "uncore"):
        row = [label(inp)]
        for p in ("workpath", "workload"):
            for w in (2, 16):
                row.append(cell(versus(runs[("uncore", f"uncore-{w}of32", inp)], w, p), core=False))
        rows.append(row)
    print_table("C2. Workpath and workload alone under the same what-if",
                ["input", "workpath 2 w", "workpath 16 w", "workload 2 w", "workload 16 w"], rows)


def table_grain(runs):
    rows = []
    for k in KERNELS:
        row = [k]
        for src, name in ((("workers", "opteron-6378", f"trace-{k}")), "main"), \
                         ((("grain", "large", f"large-{k}")), "4x input"), \
                         ((("grain", "fine", f"fine-{k}")), "1/8 grain"):
            g = runs.get(src, {})
            v2, v16 = versus(g, 2, "hermes"), versus(g, 16, "hermes")
            if v2 is None:
                row += ["–", "–", "–"]
                continue
            row += [f"{v2['tasks']:.0f} / {v2['base_steals']:.0f} / {v2['base_time']:.2f}", cell(v2, slow=True),
                    cell(v16, slow=True)]
        rows.append(row)
    print_table("D. Granularity (traces; tasks / baseline steals / baseline time s at 2 workers; "
                "hermes vs baseline at 2 and 16 workers)",
                ["kernel", "main: tasks/steals/s", "main 2 w", "main 16 w", "4x input: tasks/steals/s", "4x 2 w",
                 "4x 16 w", "1/8 grain: tasks/steals/s", "1/8 2 w", "1/8 16 w"], rows)


def emulated_slow_share(p):
    """Share of busy time below the fastest level, the emulator's added busy work included.

    An emulated report's busy_s_at_level holds the tasks' own (unstretched) time;
    the busy work that stretches them to the slow speed is emulated_delay_s.
    """
    kept = [t for t in p.get("trials", []) if t.get("ok", True) and not t.get("skipped")]
    if not kept:
        return 0.0
    busy = statistics.fmean(sum(t["busy_s_at_level"]) for t in kept)
    slow = statistics.fmean(sum(t["busy_s_at_level"][1:]) for t in kept)
    delay = p.get("emulated_delay_s", {}).get("mean", 0.0)
    return (slow + delay) / (busy + delay) if busy + delay else 0.0


def table_emulated(runs, path):
    data = json.load(open(path))
    rows = []
    for g in data["groups"]:
        k = next((k for k in KERNELS if f"{k}_omp" in g["workload"]), None)
        if k is None or g["workers"] != 2:
            continue
        pols = {p["policy"]: p for p in g["policies"]}
        sim = runs.get(("workers", "opteron-6378", f"trace-{k}"), {})
        for pol in ("workpath", "workload", "hermes"):
            p = pols.get(pol)
            if p is None:
                continue
            v = versus(sim, 2, pol)
            e_slow = emulated_slow_share(p) * 100
            rows.append([k, pol,
                         f"{p['energy_saving_pct']['value']:+.1f} ± {p['energy_saving_pct']['ci95']:.1f}",
                         f"{v['saving']:+.1f}" if v else "–",
                         f"{p['time_loss_pct']['value']:+.1f} ± {p['time_loss_pct']['ci95']:.1f}",
                         f"{v['loss']:+.1f}" if v else "–",
                         f"{p['edp_ratio']['value']:.2f} ± {p['edp_ratio']['ci95']:.2f}",
                         f"{v['edp']:.3f}" if v else "–",
                         f"{e_slow:.0f} / {v['slow']:.0f}" if v else "–",
                         f"{p['steals']['mean']:.1f} / {v['steals']:.0f}" if v else "–",
                         "yes" if v and abs(v['loss'] - p['time_loss_pct']['value']) <= p['time_loss_pct']['ci95']
                         and abs(v['saving'] - p['energy_saving_pct']['value']) <= p['energy_saving_pct']['ci95']
                         else "no"])
    print_table("E. Emulated run (mean ± 95 % CI) vs simulator, 2 workers, same inputs",
                ["kernel", "policy", "E saving % emul", "sim", "T loss % emul", "sim", "EDP emul", "sim",
                 "slow % of busy (emul incl. delay) / sim", "steals emul / sim", "sim within CI"], rows)


def table_summary(runs):
    """Trace means at 2 workers (16 in the last column), one factor changed per row."""
    def trace_mean(exp, setting, workers, prefix="trace", cores_only=False):
        vs = [versus(runs.get((exp, setting, f"{prefix}-{k}"), {}), workers, "hermes") for k in KERNELS]
        if cores_only:  # the same runs with the uncore term left out: energy = the cores alone
            vs = [v and dict(v, saving=v["core"], edp=(1 - v["core"] / 100) * (1 + v["loss"] / 100)) for v in vs]
        return mean_row(vs)

    ref = ("workers", "opteron-6378")
    lines = [
        ("reference: opteron-6378, β 1, K 2, main inputs", trace_mean(*ref, 2), trace_mean(*ref, 16)),
        ("uncore × N/32 (what-if)", trace_mean("uncore", "uncore-2of32", 2), trace_mean("uncore", "uncore-16of32", 16)),
        ("uncore 0 (cores only, same runs)", trace_mean(*ref, 2, cores_only=True),
         trace_mean(*ref, 16, cores_only=True)),
        ("β 0.5", trace_mean("beta", "beta-0.5", 2), trace_mean("beta", "beta-0.5", 16)),
        ("β 0.3", trace_mean("beta", "beta-0.3", 2), trace_mean("beta", "beta-0.3", 16)),
        ("4× input", trace_mean("grain", "large", 2, "large"), trace_mean("grain", "large", 16, "large")),
        ("1/8 grain", trace_mean("grain", "fine", 2, "fine"), trace_mean("grain", "fine", 16, "fine")),
        ("K 1", trace_mean("thresholds", "K1", 2), trace_mean("thresholds", "K1", 16)),
        ("K 4", trace_mean("thresholds", "K4", 2), trace_mean("thresholds", "K4", 16)),
        ("uncore × N/32 and β 0.5 (what-if)", trace_mean("combined", "uncore-2of32-beta-0.5", 2),
         trace_mean("combined", "uncore-16of32-beta-0.5", 16)),
    ]
    rows = [[name] + [cell(v, core=False) if v else "–" for v in (a, b)] for name, a, b in lines]
    print_table("S. Summary: hermes vs baseline, mean of the five kernel traces, one factor changed per row",
                ["setting", "2 workers", "16 workers"], rows)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit("usage: factor_tables.py OUT_DIR [--emulated COMPARE_JSON]")
    out, emulated = args[0], None
    if "--emulated" in args:
        emulated = args[args.index("--emulated") + 1]
    runs = load_runs(out)
    print("## Factor sweep tables (simulated: rubato simulate, energy simulated:<profile>)")
    print("\nCells: energy saving % / time loss % / EDP ratio vs baseline; (core x) = saving of the cores alone; "
          "[slow x %] = share of hermes's busy time at the slow level.")
    table_summary(runs)
    table_workers(runs)
    table_settings(runs, "beta", [("beta-1", "β 1"), ("beta-0.5", "β 0.5"), ("beta-0.3", "β 0.3")],
                   "B. Frequency-sensitive fraction β (traces; hermes vs baseline)")
    table_uncore(runs)
    table_grain(runs)
    table_settings(runs, "thresholds", [("K1", "K 1"), ("REF", "K 2"), ("K4", "K 4")],
                   "F. HERMES workload thresholds K (hermes vs baseline)")
    table_settings(runs, "combined", [("uncore-2of32-beta-0.5", "what-if uncore 2/32, β 0.5")],
                   "G. Combined what-if, 2 workers (NOT the machine)", workers=(2,))
    table_settings(runs, "combined", [("uncore-16of32-beta-0.5", "what-if uncore 16/32, β 0.5")],
                   "G2. Combined what-if, 16 workers (NOT the machine)", workers=(16,))
    if emulated:
        table_emulated(runs, emulated)


if __name__ == "__main__":
    main()
