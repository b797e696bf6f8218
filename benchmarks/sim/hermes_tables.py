#!/usr/bin/env python3
"""Markdown tables of the simulated HERMES experiments (reproduce_hermes.sh).

Reads OUT_DIR/<experiment>-<system>.json (`rubato compare --json`) and prints,
per figure of [HERMES], the simulated energy saving, time loss and EDP of each
policy normalised to the baseline of the same input, worker count and
frequency set. Standard library only.

    hermes_tables.py OUT_DIR > tables.md
"""
import json
import os
import re
import sys
from collections import defaultdict

SYSTEMS = {"A": "opteron-6378 (System A)", "B": "fx-8150 (System B)"}


def load(out, exp, sys_):
    path = os.path.join(out, f"{exp}-{sys_}.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)["groups"]


def input_of(workload):
    m = re.search(r"--dag pbbs:(\w+)", workload)
    if m:
        return f"{m.group(1)} (dag)"
    m = re.search(r"--trace \S*?(\w+)\.trace", workload)
    if m:
        return f"{m.group(1)} (trace)"
    return workload


def freqs_of(workload):
    m = re.search(r"--freqs (\S+)", workload)
    return m.group(1).replace("GHz", "").replace(",", "/") if m else "?"


def value(p, key):
    v = p.get(key)
    return None if v is None else v.get("value")


def core_saving(base, p):
    """Energy saving of the cores alone (the profile's uncore part left out)."""
    try:
        b = base["external"]["sim.core_energy_j"]["mean"]
        x = p["external"]["sim.core_energy_j"]["mean"]
    except KeyError:
        return None
    return (1 - x / b) * 100 if b else None


def collect(groups):
    """(input, workers, freqs) -> policy -> figures."""
    table = {}
    for g in groups:
        pols = {p["policy"]: p for p in g["policies"]}
        base = pols.get("baseline")
        row = {}
        for name, p in pols.items():
            if name == "baseline" or base is None:
                continue
            row[name] = {
                "E": value(p, "energy_saving_pct"),
                "T": value(p, "time_loss_pct"),
                "EDP": value(p, "edp_ratio"),
                "Ecore": core_saving(base, p),
                "slow": 1 - p["busy_share_at_level"][0] if p.get("busy_share_at_level") else None,
            }
        table[(input_of(g["workload"]), g["workers"], freqs_of(g["workload"]))] = row
    return table


def fmt(x, digits=1):
    return "–" if x is None else f"{x:+.{digits}f}" if digits else f"{x:.0f}"


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def inputs_in(table):
    order = ["knn", "ray", "sort", "compare", "hull"]
    names = sorted({k[0] for k in table}, key=lambda s: (s.endswith("(trace)"), order.index(s.split()[0]) if s.split()[0] in order else 99))
    return names


def workers_in(table):
    return sorted({k[1] for k in table})


def fig_6_9(out):
    print("## Figs. 6-9: HERMES vs baseline (energy saving %, time loss %, normalised EDP)\n")
    print("Each cell: energy saving % / time loss % / EDP ratio (positive saving = less energy; "
          "positive loss = slower). `core` rows: energy saving of the cores alone, without the "
          "profile's constant uncore power.\n")
    for sys_, label in SYSTEMS.items():
        t = collect(load(out, "main", sys_))
        if not t:
            continue
        ws = workers_in(t)
        print(f"### {label}, tempo frequencies {next(iter(t))[2]} GHz\n")
        print("| input | " + " | ".join(f"{w} workers" for w in ws) + " | mean |")
        print("|---|" + "---|" * (len(ws) + 1))
        for kind in ("(dag)", "(trace)"):
            allE, allT, allD, allC = [], [], [], []
            rows = [i for i in inputs_in(t) if i.endswith(kind)]
            for i in rows:
                cells, es, ts, ds, cs = [], [], [], [], []
                for w in ws:
                    h = next((v["hermes"] for k, v in t.items() if k[0] == i and k[1] == w and "hermes" in v), None)
                    if h is None:
                        cells.append("")
                        continue
                    cells.append(f"{fmt(h['E'])} / {fmt(h['T'])} / {h['EDP']:.3f} (core {fmt(h['Ecore'])})")
                    es.append(h["E"]); ts.append(h["T"]); ds.append(h["EDP"]); cs.append(h["Ecore"])
                allE += es; allT += ts; allD += ds; allC += cs
                print(f"| {i} | " + " | ".join(cells) + f" | {fmt(mean(es))} / {fmt(mean(ts))} / {mean(ds):.3f} |")
            if rows:
                print(f"| **mean {kind}** | " + " | ".join("" for _ in ws) +
                      f" | **{fmt(mean(allE))} / {fmt(mean(allT))} / {mean(allD):.3f}** (core {fmt(mean(allC))}) |")
        print()


def fig_10_13(out):
    print("## Figs. 10-13: workpath alone vs workload alone vs unified (HERMES)\n")
    print("Energy saving % / time loss %, averaged over the worker counts. The paper plots each "
          "strategy's figure divided by HERMES's; that ratio is given where HERMES's figure is at "
          "least 1 % in size (else –).\n")
    for sys_, label in SYSTEMS.items():
        t = collect(load(out, "main", sys_))
        if not t:
            continue
        print(f"### {label}\n")
        print("| input | workpath E / T | workload E / T | hermes E / T | workpath / hermes (E, T) | workload / hermes (E, T) |")
        print("|---|---|---|---|---|---|")
        for i in inputs_in(t):
            f = {p: (mean([v[p]["E"] for k, v in t.items() if k[0] == i and p in v]),
                     mean([v[p]["T"] for k, v in t.items() if k[0] == i and p in v]))
                 for p in ("workpath", "workload", "hermes")}
            def ratio(p, j):
                h = f["hermes"][j]
                return "–" if h is None or abs(h) < 1 else f"{f[p][j] / h:.2f}"
            print(f"| {i} | " + " | ".join(f"{fmt(f[p][0])} / {fmt(f[p][1])}" for p in ("workpath", "workload", "hermes")) +
                  f" | {ratio('workpath', 0)}, {ratio('workpath', 1)} | {ratio('workload', 0)}, {ratio('workload', 1)} |")
        print()


def freq_table(out, exp, title):
    print(title)
    for sys_, label in SYSTEMS.items():
        t = collect(load(out, exp, sys_))
        if not t:
            continue
        sets = sorted({k[2] for k in t}, key=lambda s: [-float(x) for x in s.split("/")])
        print(f"### {label}\n")
        print("| input | " + " | ".join(f"{s} GHz: E / T / slow %" for s in sets) + " |")
        print("|---|" + "---|" * len(sets))
        for i in inputs_in(t):
            cells = []
            for s in sets:
                hs = [v["hermes"] for k, v in t.items() if k[0] == i and k[2] == s and "hermes" in v]
                slow = mean([h["slow"] for h in hs])
                cells.append(f"{fmt(mean([h['E'] for h in hs]))} / {fmt(mean([h['T'] for h in hs]))} / "
                             f"{fmt(None if slow is None else slow * 100, 0)}")
            print(f"| {i} | " + " | ".join(cells) + " |")
        means = []
        for s in sets:
            hs = [v["hermes"] for k, v in t.items() if k[2] == s and k[0].endswith("(dag)") and "hermes" in v]
            means.append(f"**{fmt(mean([h['E'] for h in hs]))} / {fmt(mean([h['T'] for h in hs]))}**")
        print("| **mean (dag)** | " + " | ".join(means) + " |\n")


def fig_23_24(out):
    print("## Figs. 23-24: naive fixed frequency (every core at one lower frequency)\n")
    print("Energy saving % / time loss % against the baseline at the fastest frequency "
          "(negative saving = more energy than the baseline).\n")
    for sys_, label in SYSTEMS.items():
        t = collect(load(out, "fixed", sys_))
        if not t:
            continue
        pols = sorted({p for v in t.values() for p in v}, key=lambda p: -float(re.sub(r"[^0-9.]", "", p) or 0))
        ws = workers_in(t)
        print(f"### {label}\n")
        print("| input | policy | " + " | ".join(f"{w} workers" for w in ws) + " |")
        print("|---|---|" + "---|" * len(ws))
        for i in inputs_in(t):
            for p in pols:
                cells = []
                for w in ws:
                    r = next((v[p] for k, v in t.items() if k[0] == i and k[1] == w and p in v), None)
                    cells.append("" if r is None else f"{fmt(r['E'])} / {fmt(r['T'])}")
                print(f"| {i} | {p} | " + " | ".join(cells) + " |")
        print()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: hermes_tables.py OUT_DIR")
    out = sys.argv[1]
    fig_6_9(out)
    fig_10_13(out)
    freq_table(out, "freqpairs", "## Figs. 14-15: frequency pairs (HERMES; energy saving % / time loss % / share of busy time at the slow level, averaged over worker counts)\n")
    freq_table(out, "nfreq", "## Figs. 16-17: 2- vs 3-frequency tempo control (HERMES; as above)\n")
    fig_23_24(out)


if __name__ == "__main__":
    main()
