#!/usr/bin/env python3
"""Markdown tables of the simulated slack / eco sweep (slack_sweep.sh).

Reads OUT_DIR/<profile>-beta-<b>.json (`rubato compare --json`) and prints,
per profile and beta, each policy's energy saving %, time loss % and EDP
normalised to baseline, averaged over the kernel traces, per worker count;
and for eco the worst kernel (EDP and its upper 95 % bound). Standard
library only.

    slack_tables.py OUT_DIR > tables.md
"""
import glob
import json
import os
import re
import sys

POLICIES = ["hermes", "slack", "eco"]


def value(p, key):
    v = p.get(key)
    return None if v is None else v.get("value")


def ci(p, key):
    v = p.get(key)
    return None if v is None else v.get("ci95")


def kernel_of(workload):
    m = re.search(r"--trace \S*?(\w+)\.trace", workload)
    return m.group(1) if m else workload


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, spec="+.1f"):
    return "–" if x is None else format(x, spec)


def main(out):
    files = sorted(glob.glob(os.path.join(out, "*-beta-*.json")))
    summary = []
    worse = []
    for path in files:
        name = os.path.basename(path)[:-5]
        profile, beta = name.split("-beta-")
        with open(path) as f:
            groups = json.load(f)["groups"]
        by_workers = {}
        for g in groups:
            pols = {p["policy"]: p for p in g["policies"]}
            by_workers.setdefault(g["workers"], []).append((kernel_of(g["workload"]), pols))
        print(f"### {profile}, beta {beta}\n")
        print("Mean over the kernel traces of energy saving % / time loss % / EDP ÷ baseline; "
              "eco worst: the kernel with eco's highest EDP ratio, its value ± the 95 % CI half-width.\n")
        print("| workers | " + " | ".join(POLICIES) + " | eco worst kernel |")
        print("|---|" + "---|" * (len(POLICIES) + 1))
        for w in sorted(by_workers):
            cells = []
            for pol in POLICIES:
                rows = [p[pol] for _, p in by_workers[w] if pol in p]
                e = mean(value(r, "energy_saving_pct") for r in rows)
                t = mean(value(r, "time_loss_pct") for r in rows)
                d = mean(value(r, "edp_ratio") for r in rows)
                cells.append(f"{fmt(e)} / {fmt(t)} / {fmt(d, '.3f')}")
                summary.append((profile, beta, w, pol, d))
            worst = max(((k, p["eco"]) for k, p in by_workers[w] if "eco" in p),
                        key=lambda kp: value(kp[1], "edp_ratio") or 0, default=None)
            if worst:
                k, p = worst
                half = ci(p, "edp_ratio")
                half = half if half is not None and half == half else 0
                cells.append(f"{k} {value(p, 'edp_ratio'):.3f} ± {half:.3f}")
            else:
                cells.append("–")
            for k, p in by_workers[w]:
                if "eco" not in p or value(p["eco"], "edp_ratio") is None:
                    continue
                half = ci(p["eco"], "edp_ratio")
                half = half if half is not None and half == half else 0
                if value(p["eco"], "edp_ratio") - half > 1:
                    worse.append(f"{profile} beta {beta}, {w} workers, {k}: eco EDP {value(p['eco'], 'edp_ratio'):.4f} ± {half:.4f}")
            print(f"| {w} | " + " | ".join(cells) + " |")
        print()
    print("### Where eco's EDP is above baseline's beyond the 95 % CI\n")
    for line in worse or ["none"]:
        print(f"- {line}")
    print()
    print("### Summary: mean EDP ÷ baseline over kernels and worker counts\n")
    print("| profile | beta | " + " | ".join(POLICIES) + " |")
    print("|---|---|" + "---|" * len(POLICIES))
    seen = []
    for profile, beta, _, _, _ in summary:
        if (profile, beta) not in seen:
            seen.append((profile, beta))
    for profile, beta in seen:
        cells = [fmt(mean(d for pr, b, _, pol2, d in summary if pr == profile and b == beta and pol2 == pol), ".3f")
                 for pol in POLICIES]
        print(f"| {profile} | {beta} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: slack_tables.py OUT_DIR")
    main(sys.argv[1])
