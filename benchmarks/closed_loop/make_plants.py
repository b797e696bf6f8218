#!/usr/bin/env python3
"""Writes the plants the closed-loop benchmarks grade eco on (plants/*.json).

A plant is the truth the simulator (--plant) or the emulator (RUBATO_PLANT)
obeys; eco believes another profile (haswell-e5-2650v3, or one calibrate
wrote) and is never told the plant. These laws are invented on purpose to
differ from every shipped profile — in the shape of the core power curve,
the slope of the uncore power ladder, the memory-bandwidth knee — so that a
controller that only works where its model is right would show it. They
are not measurements of any machine; every number in the files says so.

    python3 benchmarks/closed_loop/make_plants.py   # rewrites plants/*.json
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORE_HZ = [2.3e9 - i * 1e8 for i in range(12)]  # the machine's core frequencies (a fact both sides share)
UNCORE_HZ = [3.0e9 - i * 2e8 for i in range(10)]

PLANTS = {
    # A steep uncore (its power falls far at low levels) and a low knee.
    "plant-steep": {
        "busy": lambda f: 0.9 + 2.4 * (f / 2.3e9) ** 2.6,
        "idle": lambda f: 0.7 + 1.6 * (f / 2.3e9) ** 2.6,
        "uncore": lambda u: 30.0 + 55.0 * ((u - 1.2e9) / 1.8e9) ** 1.6,
        "knee_hz": 1.9e9,
        "law": "core busy 0.9 + 2.4 (f/2.3 GHz)^2.6 W, idle 0.7 + 1.6 (f/2.3 GHz)^2.6 W; "
        "uncore 30 + 55 ((fu - 1.2 GHz)/1.8 GHz)^1.6 W; knee 1.9 GHz",
    },
    # A flat uncore (little to gain from it) and a high knee (uncore-bound work slows early).
    "plant-flat": {
        "busy": lambda f: 1.2 + 1.8 * (f / 2.3e9) ** 1.8,
        "idle": lambda f: 1.0 + 1.2 * (f / 2.3e9) ** 1.8,
        "uncore": lambda u: 55.0 + 20.0 * (u - 1.2e9) / 1.8e9,
        "knee_hz": 2.6e9,
        "law": "core busy 1.2 + 1.8 (f/2.3 GHz)^1.8 W, idle 1.0 + 1.2 (f/2.3 GHz)^1.8 W; "
        "uncore 55 + 20 (fu - 1.2 GHz)/1.8 GHz W; knee 2.6 GHz",
    },
}

SOURCE = "ASSUMPTION: an invented plant law, chosen to differ from every shipped profile (benchmarks/closed_loop/make_plants.py: {law})"


def plant_json(name, p):
    src = SOURCE.format(law=p["law"])
    return {
        "name": name,
        "description": "A plant for grading eco, NOT a real machine: " + p["law"],
        "cores": 20,
        "cores_per_domain": 1,
        "frequencies_hz": CORE_HZ,
        "core_power": [{"hz": f, "busy_w": round(p["busy"](f), 4), "idle_w": round(p["idle"](f), 4)} for f in CORE_HZ],
        "uncore_w": round(p["uncore"](UNCORE_HZ[0]), 4),
        "uncore_power": [{"hz": u, "w": round(p["uncore"](u), 4)} for u in UNCORE_HZ],
        "beta": 1.0,
        "transition_latency_s": 0.00027,
        "memory_bandwidth_knee_hz": p["knee_hz"],
        "sources": {k: src for k in ["cores", "cores_per_domain", "frequencies_hz", "core_power.busy_w", "core_power.idle_w", "uncore_w",
                                     "uncore_power", "beta", "transition_latency_s", "memory_bandwidth_knee_hz"]},
    }


def main():
    os.makedirs(os.path.join(HERE, "plants"), exist_ok=True)
    for name, p in PLANTS.items():
        with open(os.path.join(HERE, "plants", name + ".json"), "w") as f:
            json.dump(plant_json(name, p), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
