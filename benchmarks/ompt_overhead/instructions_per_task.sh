#!/usr/bin/env bash
# Instructions librubato_ompt.so executes per task on fib with a task per call,
# counted by valgrind's callgrind: unlike wall time, the count does not move
# with machine load, so it shows what a change to the per-task paths saves.
# fib(22) minus fib(20) (35 424 tasks more), so that start-up and report
# writing cancel out; two threads by default (with one, libomp serializes the
# team and every task is undeferred: another path). RUBATO_PROFILE_INTERVAL=10ms keeps
# the engine's clock reads per task as rare as in a real run despite
# valgrind's ~50x slowdown. --fair-sched=yes: with valgrind's default
# scheduling (threads take turns holding one lock) a libomp thread spinning
# for work could hold it for minutes; the tool's count does not depend on it.
#   instructions_per_task.sh <build dir> [policy=baseline] [backend=dry-run] [threads=2]
set -euo pipefail
build=${1:?usage: instructions_per_task.sh <build dir> [policy] [backend] [threads]}
policy=${2:-baseline}
backend=${3:-dry-run}
threads=${4:-2}
command -v valgrind > /dev/null || { echo "instructions_per_task.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
command -v callgrind_annotate > /dev/null || { echo "instructions_per_task.sh: needs callgrind_annotate (valgrind)" >&2; exit 2; }
fib=$build/benchmarks/ompt_overhead/ompt_overhead_fib_tasks
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Without debug information callgrind attributes by symbol only, and quickly.
cp "$build/frontends/ompt/librubato_ompt.so" "$tmp/tool.so"
strip --strip-debug "$tmp/tool.so"

tool_instructions() {  # n: instructions in tool.so's own functions for fib(n)
  OMP_NUM_THREADS=$threads OMP_TOOL_LIBRARIES=$tmp/tool.so RUBATO_PROFILE_INTERVAL=10ms RUBATO_POLICY=$policy \
    RUBATO_BACKEND=$backend RUBATO_REPORT=$tmp/report.json \
    valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$tmp/cg.$1" "$fib" "$1" > /dev/null 2>&1
  callgrind_annotate --threshold=100 "$tmp/cg.$1" 2> /dev/null | grep -F "/tool.so]" |
    awk '{ gsub(",", "", $1); s += $1 } END { print s + 0 }'
}

small=$(tool_instructions 20)
large=$(tool_instructions 22)
echo "librubato_ompt.so, policy $policy, backend $backend, $threads thread(s):" \
  "$(( (large - small) / 35424 )) instructions per task (callgrind, fib(22) - fib(20))"
callgrind_annotate --threshold=100 "$tmp/cg.22" 2> /dev/null | grep -F "/tool.so]" | head -5 |
  sed -e 's/ *???:/  /' -e 's/ \[.*tool.so\]//' | cut -c1-120
