#!/usr/bin/env python3
"""eco on a node without counters, open loop against closed loop.

Cuttlefish's machine's profile without its counter relation
(memory_transaction_rate_saturated_per_s removed: what a VM, a container or
every profile `rubato calibrate` writes looks like), 20 workers, one loop of
20000 tasks of 2 ms with b_c 0.27 and b_u 0–0.73, nothing given to eco: the
open loop takes b_u = 0 from the profile and puts the uncore at its lowest;
the closed loop measures. Simulated on the profile's own law (the plant is
the profile), with and without the simulated meter.

    python3 benchmarks/closed_loop/counterless.py --rubato build/default/cli/rubato
"""
import argparse
import json
import os
import subprocess
import tempfile

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rubato", default=os.path.join(REPO, "build/default/cli/rubato"))
    a = ap.parse_args()
    with open(os.path.join(REPO, "power/profiles/haswell-e5-2650v3.json")) as f:
        profile = json.load(f)
    profile.pop("memory_transaction_rate_saturated_per_s", None)
    profile["sources"].pop("memory_transaction_rate_saturated_per_s", None)
    profile["name"] = "haswell-without-counters"
    print("| b_u | loop | meter | time / baseline | energy / baseline | probing s |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "haswell-without-counters.json")
        with open(path, "w") as f:
            json.dump(profile, f)
        for bu in (0.0, 0.3, 0.5, 0.73):
            for loop, meter in (("open", "rapl"), ("closed", "rapl"), ("closed", "none")):
                out = os.path.join(d, f"{bu}-{loop}-{meter}")
                subprocess.run([a.rubato, "simulate", "--profile", path, "--workers", "20", "--dag",
                                f"loop:20000:grain=1:iter=2ms:beta=0.27:uncore={bu}", "--policy", "baseline,eco",
                                "--min-energy-loop", loop, "--meter", meter, "--quiet", "--out", out + "/"],
                               check=True)
                runs = {}
                for name in os.listdir(out):
                    with open(os.path.join(out, name)) as f:
                        r = json.load(f)
                    runs[r["policy"]["name"]] = r
                b, e = runs["baseline"], runs["eco"]
                probing = e["policy"]["parameters"].get("learning_probing_s", "—")
                print(f"| {bu} | {loop} | {meter} | {e['wall_s'] / b['wall_s']:.3f} | "
                      f"{e['energy']['joules'] / b['energy']['joules']:.3f} | {probing} |")
    print("\nsimulated (energy: simulated:haswell-without-counters, the profile's own law); eco given no shares")


if __name__ == "__main__":
    main()
