#!/usr/bin/env bash
# Instructions rubato::tbb::task_group adds per task on fib with a task per
# call, counted by valgrind's callgrind: unlike wall time, the count does not
# move with machine load, so it shows what a change to the per-task paths
# saves. tbb_overhead runs fib once with tbb::task_group, once with
# rubato::tbb::task_group (observer active) and once with the floor's
# counting-only group (floor_task_group.hpp); the script takes the inclusive
# count of each top-level fib call, for fib(22) minus fib(20) (35 422 tasks
# more, so that start-up cancels out). One thread by default: every task is
# then a pop, the common path (valgrind serializes threads anyway).
# RUBATO_PROFILE_INTERVAL=10ms keeps the engine's clock reads per task as rare
# as in a real run despite valgrind's ~50x slowdown.
#   instructions_per_task.sh <build dir> [policy=baseline] [backend=dry-run] [threads=1]
set -euo pipefail
build=${1:?usage: instructions_per_task.sh <build dir> [policy] [backend] [threads]}
policy=${2:-baseline}
backend=${3:-dry-run}
threads=${4:-1}
command -v valgrind > /dev/null || { echo "instructions_per_task.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
command -v callgrind_annotate > /dev/null || { echo "instructions_per_task.sh: needs callgrind_annotate (valgrind)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# valgrind 3.19 cannot read clang 16's DWARF 5; without debug information
# callgrind attributes by symbol only, which is all this needs.
cp "$build/benchmarks/tbb_overhead/tbb_overhead" "$tmp/tbb_overhead"
strip --strip-debug "$tmp/tbb_overhead"

run() {  # n: callgrind profile of fib(n), plain and instrumented
  RUBATO_PROFILE_INTERVAL=10ms RUBATO_POLICY=$policy RUBATO_BACKEND=$backend \
    valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$tmp/cg.$1" \
    "$tmp/tbb_overhead" --runs 1 --fib "$1" --threads "$threads" --tasks 2 --task-ms 0.1 > /dev/null 2>&1
}

fib_instructions() {  # n, group: inclusive instructions of the top-level fib<group>(int) call
  callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg.$1" 2> /dev/null |
    grep -F "fib<$2>(int) [" | awk '{ gsub(",", "", $1); print $1; exit }'
}

run 20
run 22
tasks=35422
plain=$(( ($(fib_instructions 22 tbb::detail::d1::task_group) - $(fib_instructions 20 tbb::detail::d1::task_group)) / tasks ))
rubato=$(( ($(fib_instructions 22 rubato::tbb::task_group) - $(fib_instructions 20 rubato::tbb::task_group)) / tasks ))
floor=$(( ($(fib_instructions 22 rubato::bench::floor::task_group) - $(fib_instructions 20 rubato::bench::floor::task_group)) / tasks ))
echo "fib, policy $policy, backend $backend, $threads thread(s): tbb::task_group $plain, rubato::tbb::task_group" \
  "$rubato instructions per task: +$(( rubato - plain )); the floor (floor_task_group.hpp) $floor: +$(( floor - plain ))" \
  "(callgrind, fib(22) - fib(20))"
