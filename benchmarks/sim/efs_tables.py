#!/usr/bin/env python3
"""Tables of reproduce_efs.sh: [EFS] Fig. 4 and Table 1, simulated, beside the paper."""
import json
import sys
from pathlib import Path

# [EFS] Table 1 (i5-2500, four instances of the max-bandwidth synthetic).
PAPER_TABLE1 = {
    "serial": ("Serial execution using CFS", 21.84, 527, 904),
    "all-cores": ("Parallel execution using CFS", 27.76, 1376, 2079),
    "efs": ("Parallel execution using EFS", 23.48, 527, 1089),
}
INSTANCE_SOLO_S = 5.46  # work of one instance alone (reproduce_efs.sh)


def load(path):
    with open(path) as f:
        return json.load(f)


def fig4(out):
    rows = ["| solo b | analytic throughput (Eqs. 10-12) | simulated (4 s / makespan) | difference |",
            "|---:|---:|---:|---:|"]
    for model in sorted((out / "fig4").glob("model-*.json")):
        b = model.stem.split("-", 1)[1]
        analytic = load(model)["sets"][0]["throughput"]
        sim = load(out / "fig4" / f"sim-{b}.json")
        simulated = 4.0 / sim["wall_s"]
        rows.append(f"| {b} | {analytic:.4f} | {simulated:.4f} | {100 * (simulated / analytic - 1):+.3f} % |")
    return "\n".join(rows)


def busy_mean(r):
    total = weighted = 0.0
    for key, s in r["external"].items():
        if key.startswith("sim.busy_cores_"):
            n = int(key[len("sim.busy_cores_"):].split("_")[0])
            total += s
            weighted += n * s
    return weighted / total if total else 0.0


def table1(out):
    rows = ["| run | time s (paper) | system energy J, Eq. 13 (paper) | profile energy J | J per instance, Eq. 13 "
            "| mean busy cores | throttled s (all workers) |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    names = [("serial", "serial: 1 worker"), ("all-cores", "all cores: 4 workers, baseline"),
             ("efs", "efs: 4 workers, preempt"), ("tasks-all-cores", "1 ms tasks, 4 workers, baseline"),
             ("tasks-efs-task", "1 ms tasks, 4 workers, efs --throttle task")]
    results = {}
    for key, label in names:
        path = out / "table1" / f"{key}.json"
        if not path.exists():
            continue
        r = load(path)
        results[key] = r
        eq13 = r["external"].get("sim.eq13_energy_j", float("nan"))
        paper = PAPER_TABLE1.get(key)
        t = f"{r['wall_s']:.2f}" + (f" ({paper[1]})" if paper else "")
        e = f"{eq13:.0f}" + (f" ({paper[3]})" if paper else "")
        throttled = sum(w.get("throttled_s", 0) for w in r["workers"])
        rows.append(f"| {label} | {t} | {e} | {r['energy']['joules']:.0f} | {eq13 / 4:.1f} | {busy_mean(r):.2f} "
                    f"| {throttled:.2f} |")
    lines = ["\n".join(rows)]
    if "efs" in results and "all-cores" in results:
        a, e = results["all-cores"], results["efs"]
        ea, ee = a["external"]["sim.eq13_energy_j"], e["external"]["sim.eq13_energy_j"]
        lines.append("")
        lines.append(f"efs over all cores: {100 * (a['wall_s'] / e['wall_s'] - 1):+.1f} % speed "
                     f"(paper +19.2 %), {100 * (1 - ee / ea):.1f} % less system energy (paper 47.6 %); "
                     f"{len(e['throttle_events'])} throttle decisions, "
                     f"{int(e['external'].get('sim.control_steps', 0))} control intervals.")
    return "\n".join(lines)


def main():
    out = Path(sys.argv[1])
    print("### [EFS] Fig. 4: four identical threads, throughput vs solo bus utilisation\n")
    print(fig4(out))
    print("\n### [EFS] Table 1: four max-bandwidth instances, i5-2500 profile\n")
    print(table1(out))


if __name__ == "__main__":
    main()
