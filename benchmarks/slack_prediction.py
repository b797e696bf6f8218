#!/usr/bin/env python3
"""slack's energy saving against the model's prediction.

Reads `rubato compare --json` of an experiment with baseline and slack (and
eco) runs on the emulator and the machine profile, and prints per workload:
the measured saving (baseline energy - policy energy, mean and 95 % CI from
the two means' CIs) beside the saving the model predicts from the measured
waiting time: wait_slowed_s x (idle_w(f_max) - idle_w(f_slow)), the
profile's idle power at the fastest and the slowest frequency of the ladder.
Both are in J per run. Standard library only.

    rubato compare --skip 2 --json RESULTS > c.json
    slack_prediction.py c.json power/profiles/opteron-6378.json [slow-GHz (1.4)]
"""
import json
import math
import sys


def idle_w(profile, hz):
    pts = sorted(profile["core_power"], key=lambda p: -p["hz"])
    if hz >= pts[0]["hz"]:
        return pts[0]["idle_w"]
    if hz <= pts[-1]["hz"]:
        return pts[-1]["idle_w"]
    for hi, lo in zip(pts, pts[1:]):
        if hz >= lo["hz"]:
            t = (hz - lo["hz"]) / (hi["hz"] - lo["hz"])
            return lo["idle_w"] + t * (hi["idle_w"] - lo["idle_w"])
    return pts[-1]["idle_w"]


def main(compare_path, profile_path, slow_ghz):
    with open(compare_path) as f:
        c = json.load(f)
    with open(profile_path) as f:
        profile = json.load(f)
    f_max = max(profile["frequencies_hz"])
    delta_w = idle_w(profile, f_max) - idle_w(profile, slow_ghz * 1e9)
    print(f"idle power {idle_w(profile, f_max):.3f} W at {f_max / 1e9:g} GHz, "
          f"{idle_w(profile, slow_ghz * 1e9):.3f} W at {slow_ghz:g} GHz: {delta_w:.3f} W saved per second of slowed wait\n")
    print("| workload | policy | slowed wait s | predicted saving J | measured saving J (95 % CI) | inside the CI |")
    print("|---|---|---|---|---|---|")
    for g in c["groups"]:
        pols = {p["policy"]: p for p in g["policies"]}
        base = pols.get("baseline")
        if not base or not base.get("energy_j"):
            continue
        name = g["workload"].split("/")[-1]
        for pol in ("slack", "eco"):
            p = pols.get(pol)
            if not p or not p.get("energy_j"):
                continue
            slowed = p["wait_slowed_s"]["mean"]
            predicted = slowed * delta_w
            measured = base["energy_j"]["mean"] - p["energy_j"]["mean"]
            ci = math.hypot(base["energy_j"].get("ci95") or 0, p["energy_j"].get("ci95") or 0)
            inside = abs(measured - predicted) <= ci
            print(f"| {name} | {pol} | {slowed:.4f} | {predicted:.4f} | {measured:+.4f} ± {ci:.4f} | {'yes' if inside else 'no'} |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: slack_prediction.py COMPARE_JSON PROFILE_JSON [SLOW_GHZ]")
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.4)
