#!/bin/sh
# How README.md's table was measured: every kernel at its default size with 1
# and 2 threads, REPEAT runs each, printing the minimum kernel wall time
# (time_s) and the minimum kernel CPU time (cpu_s, all threads), then one run
# per OpenMP kernel under libkernels_task_stats.so for task counts and
# durations. On a loaded machine wall times grow and CPU times much less.
# Usage: measure_defaults.sh BUILD_DIR/benchmarks/kernels [REPEAT]
set -eu
bin=${1:?usage: measure_defaults.sh DIR_WITH_KERNEL_BINARIES [REPEAT]}
repeat=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kernel_time() {  # prints "wall_min cpu_min" over $repeat runs of "$@"
  : >"$tmp/runs"
  i=0
  while [ "$i" -lt "$repeat" ]; do
    "$@" 2>"$tmp/err" >/dev/null || { echo "FAILED: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    sed -n 's/.* time_s=\([0-9.]*\) cpu_s=\([0-9.]*\).*/\1 \2/p' "$tmp/err" >>"$tmp/runs"
    i=$((i + 1))
  done
  awk 'NR == 1 || $1 < w {w = $1} NR == 1 || $2 < c {c = $2} END {printf "%7.3f %7.3f", w, c}' "$tmp/runs"
}

echo "kernel     rt    1 thread: wall   cpu   2 threads: wall   cpu   (seconds, min of $repeat)"
for k in knn ray sort compare hull memsynth fib; do
  for rt in omp tbb; do
    exe="$bin/${k}_$rt"
    [ -x "$exe" ] || continue
    printf '%-10s %-4s        %s            %s\n' "$k" "$rt" "$(kernel_time "$exe" --threads 1)" \
      "$(kernel_time "$exe" --threads 2)"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -f "$bin/libkernels_task_stats.so" ]; then
  for k in knn ray sort compare hull memsynth fib; do
    [ -x "$bin/${k}_omp" ] || continue
    printf '%-10s ' "$k"
    OMP_TOOL_LIBRARIES="$bin/libkernels_task_stats.so" "$bin/${k}_omp" --threads 2 2>&1 >/dev/null |
      grep '^task_stats:' || echo "(no task_stats line)"
  done
fi
