#!/usr/bin/env python3
"""eco's EDP ÷ baseline at every point of two slack sweeps, side by side.

Reads OUT_DIR/<profile>-beta-<b>.json (`rubato compare --json`, written by
slack_sweep.sh) of two sweeps, e.g. one made by a build before a change and
one after it (slack_sweep.sh's RUBATO picks the build), and prints one row per
profile × beta × kernel × workers: eco's EDP ratio ± the 95 % CI half-width in
each, and a mark where eco is worse than baseline beyond the CI (the ratio
minus its half-width above 1). Standard library only.

    eco_points.py BEFORE_DIR AFTER_DIR > points.md
"""
import glob
import json
import os
import re
import sys


def kernel_of(workload):
    m = re.search(r"--trace \S*?(\w+)\.trace", workload)
    return m.group(1) if m else workload


def points(out):
    """{(profile, beta, kernel, workers): (edp ratio, ci95 half-width)} of eco."""
    found = {}
    for path in sorted(glob.glob(os.path.join(out, "*-beta-*.json"))):
        profile, beta = os.path.basename(path)[:-5].split("-beta-")
        with open(path) as f:
            groups = json.load(f)["groups"]
        for g in groups:
            for p in g["policies"]:
                if p["policy"] != "eco" or p.get("edp_ratio") is None:
                    continue
                half = p["edp_ratio"].get("ci95")
                half = half if half is not None and half == half else 0.0
                found[(profile, beta, kernel_of(g["workload"]), g["workers"])] = (p["edp_ratio"]["value"], half)
    return found


def worse(point):
    return point is not None and point[0] - point[1] > 1.0


def cell(point):
    if point is None:
        return "–"
    return f"{point[0]:.4f} ± {point[1]:.4f}" + (" **worse**" if worse(point) else "")


def main(before_dir, after_dir):
    before, after = points(before_dir), points(after_dir)
    keys = sorted(set(before) | set(after), key=lambda k: (k[0], k[1], k[2], k[3]))
    print("eco's EDP ÷ baseline ± 95 % CI half-width; **worse**: above 1 beyond the CI.\n")
    print(f"| profile | beta | kernel | workers | before ({before_dir}) | after ({after_dir}) |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {cell(before.get(k))} | {cell(after.get(k))} |")
    n_before = sum(worse(p) for p in before.values())
    n_after = sum(worse(p) for p in after.values())
    print(f"\nWorse beyond the CI: {n_before} of {len(before)} points before, {n_after} of {len(after)} after.")
    for name, pts in (("before", before), ("after", after)):
        vals = [v for v, _ in pts.values()]
        if vals:
            print(f"Mean eco EDP ratio {name}: {sum(vals) / len(vals):.4f} over {len(vals)} points; "
                  f"highest {max(vals):.4f}, lowest {min(vals):.4f}.")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: eco_points.py BEFORE_DIR AFTER_DIR")
    main(sys.argv[1], sys.argv[2])
