#!/usr/bin/env bash
# [HERMES] §4.2 on the simulator: Figs. 6-9 (energy saving, time
# loss, EDP), 10-13 (workpath vs workload vs unified), 14-17 (frequency pairs
# and N-frequency sets) and 23-24 (naive fixed frequency), on the profiles of
# System A (opteron-6378; 2/4/8/16 workers) and System B (fx-8150; 2/3/4).
#   benchmarks/sim/reproduce_hermes.sh [BUILD_DIR (build/default)] [OUT_DIR (BUILD_DIR/sim-hermes)]
# Environment: TRIALS (5; seeds 1..TRIALS), TRACES (BUILD_DIR/sim-traces: adds
# trace:<kernel> inputs for the traces found there, see record_traces.sh).
# Writes OUT_DIR/<experiment>/<system>/<input>/*.json, one compare JSON per
# experiment and system, and OUT_DIR/tables.md (hermes_tables.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
out=${2:-$build/sim-hermes}
trials=${TRIALS:-5}
traces=${TRACES:-$build/sim-traces}
rubato=$build/cli/rubato
[ -x "$rubato" ] || { echo "reproduce_hermes: $rubato not built" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

inputs=()
for b in knn ray sort compare hull; do inputs+=("pbbs:$b"); done
for b in knn ray sort compare hull; do [ -f "$traces/$b.trace" ] && inputs+=("trace:$b"); done

declare -A profile=([A]=opteron-6378 [B]=fx-8150)
declare -A workers=([A]=2,4,8,16 [B]=2,3,4)
# The 2-frequency pair each system's N-frequency figure starts from (Figs. 16-17, column 1).
declare -A pair=([A]=2.4GHz,1.6GHz [B]=3.6GHz,2.7GHz)
declare -A pairs=([A]="2.4GHz,1.6GHz 2.4GHz,1.4GHz 2.4GHz,1.9GHz" [B]="3.6GHz,2.7GHz 3.6GHz,2.1GHz 3.6GHz,3.3GHz")
declare -A nsets=([A]="2.4GHz,1.6GHz 2.4GHz,1.6GHz,1.4GHz 2.4GHz,1.9GHz,1.6GHz" [B]="3.6GHz,2.7GHz 3.6GHz,3.3GHz,2.7GHz")
declare -A fixed=([A]=fixed:1.9GHz,fixed:1.4GHz [B]=fixed:2.7GHz,fixed:1.4GHz)

simulate() {  # experiment system input policies freqs...
  local exp=$1 sys=$2 input=$3 policies=$4
  shift 4
  local source=(--dag "$input")
  [[ $input == trace:* ]] && source=(--trace "$traces/${input#trace:}.trace")
  local freqs=()
  for f in "$@"; do freqs+=(--freqs "$f"); done
  local cmd=("$rubato" simulate --profile "${profile[$sys]}" --workers "${workers[$sys]}" "${source[@]}"
             --policy "$policies" "${freqs[@]}" --trials "$trials" --out "$out/$exp/$sys/${input/:/-}" --quiet)
  echo "${cmd[*]}" >>"$out/commands.txt"
  "${cmd[@]}"
}

for sys in A B; do
  for input in "${inputs[@]}"; do
    simulate main "$sys" "$input" baseline,workpath,workload,hermes "${pair[$sys]}"
    # shellcheck disable=SC2086
    simulate freqpairs "$sys" "$input" baseline,hermes ${pairs[$sys]}
    # shellcheck disable=SC2086
    simulate nfreq "$sys" "$input" baseline,hermes ${nsets[$sys]}
    case $input in *knn | *ray) simulate fixed "$sys" "$input" "baseline,${fixed[$sys]}" "${pair[$sys]}" ;; esac
  done
  for exp in main freqpairs nfreq fixed; do
    "$rubato" compare --skip 0 --json "$out/$exp/$sys" >"$out/$exp-$sys.json"
  done
done
python3 benchmarks/sim/hermes_tables.py "$out" >"$out/tables.md"
echo "tables: $out/tables.md"
