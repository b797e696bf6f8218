#!/usr/bin/env bash
# Overhead of librubato_ompt.so: fib(30) with a task per call and a coarse
# task program, 2 threads, each run with no tool, the null tool, the floor
# tool (floor_tool.cpp: exact counts and nothing else), rubato baseline +
# dry-run and rubato hermes + dry-run; RUNS interleaved rounds;
# medians of the timed parallel region's wall and CPU time (after a warm-up
# region that starts the runtime and the tool) and their ratios; then the
# start-up cost (whole process of a trivial run).
#   run_overhead.sh <build dir> [runs=7]
set -euo pipefail
build=${1:?usage: run_overhead.sh <build dir> [runs]}
runs=${2:-7}
bench=$build/benchmarks/ompt_overhead
tool=$build/frontends/ompt/librubato_ompt.so
null=$bench/libompt_null_tool.so
floor=$bench/libompt_floor_tool.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=2
configs=(none null floor baseline hermes)

run_with() {  # config program [args...]: the program's stdout
  local config=$1
  shift
  case $config in
    none) env -u OMP_TOOL_LIBRARIES "$@" ;;
    null) OMP_TOOL_LIBRARIES=$null "$@" ;;
    floor) OMP_TOOL_LIBRARIES=$floor "$@" ;;
    baseline) OMP_TOOL_LIBRARIES=$tool RUBATO_POLICY=baseline RUBATO_BACKEND=dry-run RUBATO_REPORT="$tmp/r.json" "$@" 2>/dev/null ;;
    hermes) OMP_TOOL_LIBRARIES=$tool RUBATO_POLICY=hermes RUBATO_BACKEND=dry-run RUBATO_REPORT="$tmp/r.json" "$@" 2>/dev/null ;;
  esac
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
paired() {  # file reference-file: median of the per-round ratios
  paste "$1" "$2" | awk '{ print $1 / $2 }' | median
}
# Ratios of the medians, and the medians of the per-round ratios ("paired"):
# the rounds run the configurations back to back, so a paired ratio cancels
# the machine's drift from one round to the next, which on a VM can be larger
# than the difference measured.
table() {  # title file-prefix
  echo "$1"
  declare -A med=()
  for c in "${configs[@]}"; do med[$c]=$(median < "$2.$c"); done
  for c in "${configs[@]}"; do
    awk -v c="$c" -v t="${med[$c]}" -v none="${med[none]}" -v null="${med[null]}" \
      -v pnone="$(paired "$2.$c" "$2.none")" -v pnull="$(paired "$2.$c" "$2.null")" \
      'BEGIN { printf "  %-9s %9.4f s   x%.3f vs no tool   x%.3f vs null tool   (paired: x%.3f, x%.3f)\n",
               c, t, t / none, t / null, pnone, pnull }'
  done
}

for prog in ompt_overhead_fib_tasks ompt_overhead_coarse_tasks; do
  for ((r = 0; r < runs; ++r)); do
    for c in "${configs[@]}"; do
      run_with "$c" "$bench/$prog" > "$tmp/out"
      sed -n 's/.*time \([0-9.]*\).*/\1/p' "$tmp/out" >> "$tmp/$prog.wall.$c"
      sed -n 's/.*cpu \([0-9.]*\).*/\1/p' "$tmp/out" >> "$tmp/$prog.cpu.$c"
    done
  done
  table "$prog (OMP_NUM_THREADS=2, $runs interleaved runs): median wall time of the timed region" "$tmp/$prog.wall"
  table "$prog: median CPU time (user + system, all threads) of the timed region" "$tmp/$prog.cpu"
done

for ((r = 0; r < runs; ++r)); do
  for c in "${configs[@]}"; do
    start=$(date +%s%N)
    run_with "$c" "$bench/ompt_overhead_fib_tasks" 2 > /dev/null
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000 ))e-6" >> "$tmp/startup.$c"
  done
done
table "start-up: whole process of fib(2), $runs runs" "$tmp/startup"
