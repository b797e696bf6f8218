#!/usr/bin/env bash
# Why HERMES loses to baseline on this machine's main experiment
# (scripts/experiment.sh): one factor changed at a time on the simulator, which drives the
# real engine and policies and is deterministic (no host load in the figures).
#   benchmarks/sim/factor_sweep.sh [BUILD_DIR (build/default)] [OUT_DIR (BUILD_DIR/factor-sweep)]
# Environment: TRIALS (5), EMULATED (a `rubato run` results directory, e.g.
# the main command's, for table E: simulator vs emulator at 2 workers) and
# EMULATED_SKIP (2: trials dropped there, as the main command).
# Needs BUILD_DIR's rubato, librubato_ompt.so and *_omp kernels. Writes
# OUT_DIR/commands.txt (every command), OUT_DIR/traces/, OUT_DIR/runs/ and
# OUT_DIR/tables.md (factor_tables.py). See benchmarks/ANALYSIS.md.
#
# Experiments (reference point: opteron-6378 profile, ladder 2.4/1.4 GHz as the
# main experiment, beta = profile default 1, K = 2 thresholds, 2 workers):
#   workers    2/4/8/16 workers, all four policies
#   beta       frequency-sensitive fraction 1 / 0.5 / 0.3 (traces)
#   uncore     what-if profiles: uncore_w x N/32 for a run on N of the 32 cores
#   grain      the same kernels recorded at 4x input and at 1/8 grain
#   thresholds HERMES's K = 1 / 2 / 4 workload thresholds
#   combined   what-if uncore x N/32 with beta 0.5 (what would have to be true)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
out=${2:-$build/factor-sweep}
trials=${TRIALS:-5}
rubato=$build/cli/rubato
tool=$build/frontends/ompt/librubato_ompt.so
for f in "$rubato" "$tool"; do [ -e "$f" ] || { echo "factor_sweep: $f not built" >&2; exit 1; }; done
rm -rf "$out/runs"
mkdir -p "$out/runs" "$out/traces" "$out/whatif"
: >"$out/commands.txt"

kernels=(knn ray sort compare hull)
# The main experiment's inputs (scripts/experiment.sh, scale 1, default grains)...
declare -A main_args=(
  [knn]="--n 100000" [ray]="--n 20000" [sort]="--n 4000000" [compare]="--n 1500000" [hull]="--n 3000000")
# ... at 4x the input (more tasks of the same grain) ...
declare -A large_args=(
  [knn]="--n 400000" [ray]="--n 80000" [sort]="--n 16000000" [compare]="--n 6000000" [hull]="--n 12000000")
# ... and at 1/8 of the default grain (more, smaller tasks for the same input).
declare -A fine_args=(
  [knn]="--n 100000 --grain 256" [ray]="--n 20000 --grain 128" [sort]="--n 4000000 --grain 8192"
  [compare]="--n 1500000 --grain 4096 --bucket 4096" [hull]="--n 3000000 --grain 4096")

# One thread, backend dry-run, baseline: the task tree with each task's work at
# full speed (as record_traces.sh). An existing trace is kept (delete it to re-record).
record() {  # variant kernel args...
  local variant=$1 k=$2
  shift 2
  local dir=$out/traces/$variant
  mkdir -p "$dir"
  [ -s "$dir/$k.trace" ] && return 0
  echo "OMP_NUM_THREADS=1 RUBATO_POLICY=baseline RUBATO_BACKEND=dry-run $build/benchmarks/kernels/${k}_omp $*" >>"$out/commands.txt"
  OMP_NUM_THREADS=1 OMP_TOOL_LIBRARIES=$tool RUBATO_TRACE=$dir/$k.trace RUBATO_REPORT=$dir/$k.json \
    RUBATO_POLICY=baseline RUBATO_BACKEND=dry-run "$build/benchmarks/kernels/${k}_omp" "$@" >/dev/null 2>"$dir/$k.log"
}
for k in "${kernels[@]}"; do
  # shellcheck disable=SC2086
  record main "$k" ${main_args[$k]}
  # shellcheck disable=SC2086
  record large "$k" ${large_args[$k]}
  # shellcheck disable=SC2086
  record fine "$k" ${fine_args[$k]}
done

# What-if profiles: NOT the machine. The opteron-6378 profile with its assumed
# constant uncore (25 % of TDP of both packages) scaled to the share of the 32
# cores a run of N workers uses. Written here, never to power/profiles.
for n in 2 4 8 16; do
  python3 - "$n" "$out/whatif/opteron-6378-uncore-${n}of32.json" <<'EOF'
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
p = json.load(open("power/profiles/opteron-6378.json"))
p["uncore_w"] = p["uncore_w"] * n / p["cores"]
p["name"] = f"whatif-opteron-6378-uncore-{n}of32"
p["description"] = (f"WHAT-IF, not a machine: opteron-6378 with uncore_w scaled to {n} of {p['cores']} cores "
                    "(benchmarks/sim/factor_sweep.sh)")
p["cpu_model_match"] = []
p["sources"]["uncore_w"] = f"WHAT-IF: opteron-6378's assumed 57.5 W x {n}/{p['cores']}"
json.dump(p, open(path, "w"), indent=2)
EOF
done

simulate() {  # experiment setting input workers policies [extra args...]
  local exp=$1 setting=$2 input=$3 workers=$4 policies=$5
  shift 5
  local source
  case $input in
    trace:*) source=(--trace "$out/traces/main/${input#trace:}.trace" --model omp) ;;
    large:*) source=(--trace "$out/traces/large/${input#large:}.trace" --model omp) ;;
    fine:*) source=(--trace "$out/traces/fine/${input#fine:}.trace" --model omp) ;;
    *) source=(--dag "$input") ;;
  esac
  local dir=$out/runs/$exp/$setting/${input/:/-}
  local cmd=("$rubato" simulate --workers "$workers" "${source[@]}" --policy "$policies" --trials "$trials" \
    --quiet --out "$dir" "$@")
  echo "${cmd[*]}" >>"$out/commands.txt"
  "${cmd[@]}" >/dev/null
}

all=baseline,workpath,workload,hermes
traces=() dags=()
for k in "${kernels[@]}"; do traces+=("trace:$k"); dags+=("pbbs:$k"); done

for input in "${traces[@]}" "${dags[@]}"; do
  simulate workers opteron-6378 "$input" 2,4,8,16 "$all" --profile opteron-6378
  for n in 2 4 8 16; do
    simulate uncore "uncore-${n}of32" "$input" "$n" "$all" --profile "$out/whatif/opteron-6378-uncore-${n}of32.json"
  done
  for k in 1 4; do
    simulate thresholds "K$k" "$input" 2,16 baseline,hermes --profile opteron-6378 --thresholds "$k"
  done
done
for input in "${traces[@]}"; do
  # The profile's beta 1 applies to every trace task; pbbs:* phases set their own (0.3-0.9).
  for b in 1 0.5 0.3; do
    simulate beta "beta-$b" "$input" 2,16 "$all" --profile opteron-6378 --beta "$b"
  done
  k=${input#trace:}
  simulate grain large "large:$k" 2,16 "$all" --profile opteron-6378
  simulate grain fine "fine:$k" 2,16 "$all" --profile opteron-6378
  for n in 2 16; do
    simulate combined "uncore-${n}of32-beta-0.5" "$input" "$n" baseline,hermes \
      --profile "$out/whatif/opteron-6378-uncore-${n}of32.json" --beta 0.5
  done
done

emulated=()
if [ -n "${EMULATED:-}" ]; then
  echo "$rubato compare --skip ${EMULATED_SKIP:-2} --json $EMULATED" >>"$out/commands.txt"
  "$rubato" compare --skip "${EMULATED_SKIP:-2}" --json "$EMULATED" >"$out/emulated.json"
  emulated=(--emulated "$out/emulated.json")
fi
python3 benchmarks/sim/factor_tables.py "$out" "${emulated[@]}" >"$out/tables.md"
echo "factor_sweep: $(wc -l <"$out/commands.txt") commands, tables in $out/tables.md"
