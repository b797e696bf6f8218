#!/usr/bin/env bash
# Records task traces of the five PBBS kernels (benchmarks/kernels, OpenMP
# builds) through the OMPT tool, for `rubato simulate --trace`.
#   benchmarks/sim/record_traces.sh [BUILD_DIR (build/default)] [OUT_DIR (BUILD_DIR/sim-traces)]
# One thread (OMP_NUM_THREADS=1): the trace is the whole task tree with each
# task's work, undisturbed by a second thread competing for a small machine;
# the simulator spreads it over any number of workers. Backend dry-run: no
# emulated slowdown in the recorded durations.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
out=${2:-$build/sim-traces}
tool=$build/frontends/ompt/librubato_ompt.so
[ -f "$tool" ] || { echo "record_traces: $tool not built" >&2; exit 1; }
mkdir -p "$out"

# Sizes: about one to two seconds on one core of the machine this was written on.
declare -A args=(
  [knn]="--n 200000 --grain 512"
  [ray]="--n 50000 --grain 64"
  [sort]="--n 4000000 --grain 16384"
  [compare]="--n 2000000 --grain 8192 --bucket 8192"
  [hull]="--n 2000000 --grain 8192"
)
for k in knn ray sort compare hull; do
  program=$build/benchmarks/kernels/${k}_omp
  [ -x "$program" ] || { echo "record_traces: $program not built, skipped" >&2; continue; }
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=1 OMP_TOOL_LIBRARIES=$tool RUBATO_TRACE=$out/$k.trace RUBATO_REPORT=$out/$k.json \
    RUBATO_POLICY=baseline RUBATO_BACKEND=dry-run "$program" ${args[$k]} >/dev/null 2>"$out/$k.log"
  echo "recorded $out/$k.trace ($program ${args[$k]})"
done
