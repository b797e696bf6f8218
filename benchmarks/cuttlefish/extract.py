#!/usr/bin/env python3
"""Extract the measured figures of the Cuttlefish artifact into CSV files.

[Cuttlefish] published its raw logs with the paper (repository hipec/cuttlefish,
AE/sc21/artifact/paper_results/logs). This script reads them, either from a
work tree of that repository or straight from a git directory (bare mirrors
included), and writes:

  mapping.csv        the pinned sweep (logs/mapping) and the repeated pinned
                     2.3/3.0 GHz run of logs/timeline: one row per run
  policy_runs.csv    the ten runs per program of logs/T_inv/T_20 (default and
                     combined) and of logs/policy/OpenMP (core and uncore
                     only; its default and combined files are the same blobs
                     as T_20's): one row per run, with the time-weighted
                     frequencies Cuttlefish chose
  policy_slabs.csv   the TIPI slabs each Cuttlefish run reports (slabs over 5 %
                     of the intervals only, as its runtime prints them)

Standard library only. Usage:

  extract.py --git-dir /path/to/cuttlefish/.git [--commit 16e3781...] [--out DIR]
  extract.py --checkout /path/to/cuttlefish-worktree [--out DIR]
"""
import argparse
import csv
import os
import re
import subprocess
import sys

COMMIT = "16e3781d54664877fafc374cf12e9566626cef87"
BASE = "AE/sc21/artifact/paper_results/logs"
TABULATE = "============================ Tabulate Statistics ============================"
UNPROCESSED = "============================ Unprocessed Statistics ============================"
END_BLOCK = "============================================================================="
# <program>.3096.1024.<policy>.threads-20.C<core>.U<uncore>[.<iteration>].log
NAME = re.compile(r"^(?P<prog>[A-Za-z]+)\.3096\.1024\.(?P<policy>[a-z]+)\.threads-(?P<threads>\d+)"
                  r"\.C(?P<core>\d+)\.U(?P<uncore>\d+)(?:\.(?P<iter>\d+))?\.log$")
COUNTERS = ["PWR_PKG_ENERGY", "INST_RETIRED", "TOR_OCCUPANCY", "RR_OCCUPANCY", "TIPI", "L3_MISS", "L2_MISS", "TIME"]


class Source:
    """Reads files of the artifact from a work tree or a git directory."""

    def __init__(self, checkout=None, git_dir=None, commit=COMMIT):
        self.checkout, self.git_dir, self.commit = checkout, git_dir, commit

    def git(self, *args):
        return subprocess.run(["git", "--git-dir", self.git_dir, *args], check=True,
                              capture_output=True).stdout

    def list(self, folder):
        if self.checkout:
            return sorted(f"{folder}/{n}" for n in os.listdir(os.path.join(self.checkout, folder)))
        out = self.git("ls-tree", "--name-only", f"{self.commit}:{folder}").decode()
        return sorted(f"{folder}/{n}" for n in out.split())

    def read(self, path):
        if self.checkout:
            with open(os.path.join(self.checkout, path), "rb") as f:
                data = f.read()
        else:
            data = self.git("show", f"{self.commit}:{path}")
        return data.decode("iso-8859-1")

    def head_commit(self):
        if self.git_dir:
            return self.git("rev-parse", self.commit).decode().strip()
        try:
            return subprocess.run(["git", "-C", self.checkout, "rev-parse", "HEAD"], check=True,
                                  capture_output=True).stdout.decode().strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown (not a git work tree)"


def tabulate_blocks(text):
    """Each run's 'Tabulate Statistics' header and values, as a dict."""
    lines = text.splitlines()
    runs = []
    for i, line in enumerate(lines):
        if line.strip() != TABULATE.strip():
            continue
        names = lines[i + 1].rstrip("\n").split("\t")
        values = lines[i + 2].rstrip("\n").split("\t")
        runs.append({n: v for n, v in zip(names, values) if n})
    return runs


def interval_uncore(text, target):
    """Per-interval rows of 'Unprocessed Statistics' (TIPI, JPI, uncore
    frequency of socket 0 and 1 in 100 MHz): how many, and how many leading
    ones were not yet at the pinned uncore frequency."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.strip() == UNPROCESSED.strip():
            inside = True
            continue
        if inside and line.strip() == END_BLOCK:
            break
        parts = line.split()
        if inside and len(parts) == 4 and re.match(r"^[0-9.]+$", parts[0]):
            rows.append((int(parts[2]), int(parts[3])))
    leading = 0
    for u0, u1 in rows:
        if u0 == target and u1 == target:
            break
        leading += 1
    return len(rows), leading


def counters(run):
    return {
        "time_s": round(float(run["TIME"]) / 1000.0, 9),  # the runtime reports ms
        "energy_j": float(run["PWR_PKG_ENERGY"]),
        "instructions": int(run["INST_RETIRED"]),
        "tor_occupancy": int(run["TOR_OCCUPANCY"]),
        "rr_occupancy": int(run["RR_OCCUPANCY"]),
        "tipi": float(run["TIPI"]),
        "l3_miss": int(run["L3_MISS"]),
        "l2_miss": int(run["L2_MISS"]),
    }


def mapping_rows(src):
    rows = []
    for log_set in ("mapping", "timeline"):
        for path in src.list(f"{BASE}/{log_set}"):
            m = NAME.match(os.path.basename(path))
            if not m:
                continue
            text = src.read(path)
            runs = tabulate_blocks(text)
            n_int, leading = interval_uncore(text, int(m["uncore"]))
            for k, run in enumerate(runs):
                row = {"program": m["prog"], "core_ghz": int(m["core"]) / 10, "uncore_ghz": int(m["uncore"]) / 10,
                       "log_set": log_set, "run": k + 1}
                row.update(counters(run))
                row.update({"intervals": n_int, "intervals_before_uncore_pinned": leading, "source_path": path})
                rows.append(row)
    return rows


def slabs_of(run):
    """Slabs of one Cuttlefish run: the columns '<lo>_<hi>_PERC|CF|UF|CT|UT'."""
    slabs = {}
    for key, value in run.items():
        m = re.match(r"^([0-9.]+)_([0-9.]+)_(PERC|CF|UF|CT|UT)$", key)
        if m:
            slabs.setdefault((m[1], m[2]), {})[m[3]] = value
    out = []
    for (lo, hi), s in sorted(slabs.items(), key=lambda kv: float(kv[0][0])):
        cf, uf = int(s["CF"]), int(s["UF"])
        out.append({"slab_lo": float(lo), "slab_hi": float(hi), "share": float(s["PERC"]),
                    "core_ghz": cf / 10 if cf > 0 else "", "uncore_ghz": uf / 10 if uf > 0 else "",
                    "core_probe_intervals": int(s["CT"]), "uncore_probe_intervals": int(s["UT"])})
    return out


def weighted(slabs, key):
    known = [(s["share"], s[key]) for s in slabs if s[key] != ""]
    total = sum(w for w, _ in known)
    return (round(sum(w * f for w, f in known) / total, 4), round(total, 6)) if total > 0 else ("", 0.0)


def policy_rows(src):
    files = []
    for path in src.list(f"{BASE}/T_inv/T_20"):
        files.append(("T_inv/T_20", path))
    for path in src.list(f"{BASE}/policy/OpenMP"):
        m = NAME.match(os.path.basename(path))
        if m and m["policy"] in ("core", "uncore"):
            files.append(("policy/OpenMP", path))
    runs_out, slabs_out = [], []
    for log_set, path in files:
        m = NAME.match(os.path.basename(path))
        if not m:
            continue
        for k, run in enumerate(tabulate_blocks(src.read(path))):
            slabs = slabs_of(run)
            core, core_share = weighted(slabs, "core_ghz")
            uncore, uncore_share = weighted(slabs, "uncore_ghz")
            row = {"program": m["prog"], "mode": m["policy"], "log_set": log_set, "run": k + 1}
            row.update(counters(run))
            row.update({
                "tipi_range_lo": run.get("RANGE_L", ""), "tipi_range_hi": run.get("RANGE_R", ""),
                "distinct_slabs": run.get("DISTINCT_SLABS", ""), "opt_core_slabs": run.get("OPT_CORE_SLABS", ""),
                "opt_uncore_slabs": run.get("OPT_UNCORE_SLABS", ""), "listed_slabs": len(slabs),
                "listed_share": round(sum(s["share"] for s in slabs), 6),
                "core_ghz_weighted": core, "core_known_share": core_share,
                "uncore_ghz_weighted": uncore, "uncore_known_share": uncore_share, "source_path": path})
            runs_out.append(row)
            for s in slabs:
                slabs_out.append({"program": m["prog"], "mode": m["policy"], "run": k + 1, **s, "source_path": path})
    return runs_out, slabs_out


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {path}: {len(rows)} rows")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--checkout", help="work tree of hipec/cuttlefish at commit " + COMMIT[:7])
    g.add_argument("--git-dir", help="git directory of hipec/cuttlefish (bare is fine)")
    ap.add_argument("--commit", default=COMMIT, help="commit to read with --git-dir (default %(default)s)")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    src = Source(a.checkout, a.git_dir, a.commit)
    head = src.head_commit()
    if head != COMMIT:
        print(f"warning: reading commit {head}; the CSVs in the repository come from {COMMIT}", file=sys.stderr)
    write_csv(os.path.join(a.out, "mapping.csv"), mapping_rows(src))
    runs, slabs = policy_rows(src)
    write_csv(os.path.join(a.out, "policy_runs.csv"), runs)
    write_csv(os.path.join(a.out, "policy_slabs.csv"), slabs)


if __name__ == "__main__":
    main()
