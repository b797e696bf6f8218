#!/usr/bin/env bash
# slack's saving, simulated: baseline, hermes, slack and eco on the simulator, over the
# kernel traces (record_traces.sh), 2..32 workers, the profile's beta and
# beta 0.5 and 0.3, on opteron-6378 ([HERMES] System A) and a current part
# (epyc-7502: measured, docs/machine-profiles.md). Nothing is tuned: every
# figure is the profile's; the betas and worker counts were fixed beforehand.
#   benchmarks/sim/slack_sweep.sh [BUILD_DIR (build/default)] [OUT_DIR (BUILD_DIR/sim-slack)]
# Environment: TRIALS (3; seeds 1..TRIALS), TRACES (BUILD_DIR/sim-traces),
# PROFILES (opteron-6378 epyc-7502), WORKERS (2,4,8,16,32), BETAS (profile 0.5 0.3),
# RUBATO (BUILD_DIR/cli/rubato: another build's, to compare two versions).
# Writes OUT_DIR/<profile>/beta-<b>/<kernel>/*.json, one compare JSON per
# profile and beta, commands.txt and tables.md (slack_tables.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
out=${2:-$build/sim-slack}
trials=${TRIALS:-3}
traces=${TRACES:-$build/sim-traces}
profiles=${PROFILES:-opteron-6378 epyc-7502}
workers=${WORKERS:-2,4,8,16,32}
betas=${BETAS:-profile 0.5 0.3}
rubato=${RUBATO:-$build/cli/rubato}
[ -x "$rubato" ] || { echo "slack_sweep: $rubato not built" >&2; exit 1; }
ls "$traces"/*.trace >/dev/null 2>&1 || { echo "slack_sweep: no traces in $traces (run record_traces.sh)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

for profile in $profiles; do
  for beta in $betas; do
    beta_args=()
    [ "$beta" = profile ] || beta_args=(--beta "$beta")
    dir=$out/$profile/beta-$beta
    for trace in "$traces"/*.trace; do
      kernel=$(basename "$trace" .trace)
      cmd=("$rubato" simulate --profile "$profile" --workers "$workers" --trace "$trace" "${beta_args[@]}"
           --policy baseline,hermes,slack,eco --trials "$trials" --out "$dir/$kernel" --quiet)
      echo "${cmd[*]}" >>"$out/commands.txt"
      "${cmd[@]}"
    done
    "$rubato" compare --skip 0 --json "$dir" >"$out/$profile-beta-$beta.json"
  done
done
python3 benchmarks/sim/slack_tables.py "$out" >"$out/tables.md"
echo "slack_sweep: $out/tables.md"
