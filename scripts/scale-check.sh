#!/usr/bin/env bash
# A scale check for a machine with more cores than the 2 rubato is developed
# on: the ground-truth programs the tests use, at 2, 8 and all cores, with
# rubato attached (dry-run: nothing on the machine changes), each report's
# steals compared with what the program recorded of its own tasks; the OMPT
# tool's and the oneTBB preload's overhead at all cores; `rubato info`. One
# summary table at the end; the logs stay in the work directory it names.
#
#   scripts/scale-check.sh [--build DIR] [--no-build] [--runs N] [--out DIR]
#
#   --build DIR  a build made by the README's commands (default build/default)
#   --no-build   use what DIR holds (else: cmake --build DIR --target <what it needs>)
#   --runs N     interleaved rounds per overhead figure (default 5)
#   --out DIR    where the logs go (default: a new directory under ${TMPDIR:-/tmp})
#
# Cores: a row at C cores runs on the first C CPUs this process may use
# (taskset); with fewer CPUs than C, OpenMP programs still run C threads on
# all of them (oversubscribed), and oneTBB's default arena, which has one
# thread per CPU it may use, is left out. "exact": rubato's total steals (and
# every worker's pushes, pops, steals) equal the program's own record
# (tests/ompt/ompt_check for OpenMP; the preload's report against
# tests/tbb/programs/preload_ground_truth's count for oneTBB task_group; the
# linked rubato::tbb ground-truth tests, Tbb.GroundTruth.FibTaskGroup and
# NestedParallelInvoke, arenas of 1, 2, 4 and 8 threads on C cores); "n/a"
# where the program cannot see the tasks (parallel_invoke and flow::graph under
# the preload run oneTBB's own tasks): there the counts must balance (every
# push popped or stolen, completed once). Exit status 1 when a check failed.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/default
do_build=1
runs=5
out=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=${2:?--build needs a directory}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scale-check: unknown argument '$1' (accepted: --build DIR, --no-build, --runs N, --out DIR)" >&2; exit 2 ;;
  esac
done
case $runs in '' | *[!0-9]* | 0) echo "scale-check: --runs $runs: expected a whole number >= 1" >&2; exit 2 ;; esac
[ -f "$build/CMakeCache.txt" ] || { echo "scale-check: no build in $build (README: cmake --preset default && cmake --build --preset default)" >&2; exit 2; }
for tool in jq taskset; do
  command -v "$tool" >/dev/null || { echo "scale-check: needs $tool (scripts/setup.sh installs it)" >&2; exit 2; }
done
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/rubato-scale-check.XXXXXX")
mkdir -p "$out"
say() { echo "scale-check: $*" >&2; }
# Known settings: a caller's RUBATO_* variable (a worker limit, a policy) would
# change what is counted.
for v in $(compgen -e | grep '^RUBATO_'); do unset "$v"; done
unset OMP_TOOL_LIBRARIES OMP_NUM_THREADS

targets=(rubato rubato_ompt rubato_tbb_preload ompt_check tbb_preload_ground_truth tbb_tests
         ompt_overhead_fib_tasks ompt_overhead_coarse_tasks tbb_overhead)
omp_programs=(fib producer taskgroup taskloop untied)
for p in "${omp_programs[@]}"; do targets+=("ompt_program_$p"); done
if [ $do_build = 1 ]; then
  # Only the targets this build has (no oneTBB: no preload, no tbb_tests).
  known=$(cmake --build "$build" --target help 2>/dev/null | sed -E 's/^(\.\.\. )?[[:space:]]*([^:[:space:]]+).*/\2/')
  present=()
  for t in "${targets[@]}"; do grep -qx -- "$t" <<< "$known" && present+=("$t"); done
  say "building ${present[*]} in $build"
  cmake --build "$build" -j "$(nproc)" --target "${present[@]}" > "$out/build.log" 2>&1 ||
    { tail -20 "$out/build.log" >&2; say "build failed ($out/build.log)"; exit 2; }
fi
rubato=$build/cli/rubato
ompt_tool=$build/frontends/ompt/librubato_ompt.so
preload=$build/frontends/tbb_preload/librubato_tbb_preload.so
ompt_check=$build/tests/ompt/ompt_check
omp_dir=$build/tests/ompt/programs
tbb_truth=$build/tests/tbb/tbb_preload_ground_truth
tbb_tests=$build/tests/tbb/tbb_tests
bench=$build/benchmarks
for f in "$rubato" "$ompt_tool" "$ompt_check"; do
  [ -e "$f" ] || { say "missing $f (build it, or leave out --no-build)"; exit 2; }
done

# The CPUs this process may use, expanded ("0-3,8" -> 0 1 2 3 8).
cpus=()
for part in $(taskset -pc $$ | sed 's/.*: //' | tr ',' ' '); do
  if [[ $part == *-* ]]; then for ((c = ${part%-*}; c <= ${part#*-}; ++c)); do cpus+=("$c"); done
  else cpus+=("$part"); fi
done
ncpu=${#cpus[@]}
first_cpus() { local n=$(( $1 < ncpu ? $1 : ncpu )); local IFS=,; echo "${cpus[*]:0:$n}"; }
# Thread counts: 2, 8 and all, each once.
counts=()
for n in 2 8 "$ncpu"; do [[ " ${counts[*]} " == *" $n "* ]] || counts+=("$n"); done

rows=()     # the summary table's rows, tab-separated
failed=0
row() { rows+=("$(printf '%s\t%s\t%s\t%s\t%s' "$@")"); }
verdict() { [ "$1" = yes ] || [ "$1" = n/a ] || [ "$1" = - ] || failed=1; }

# --- rubato info ------------------------------------------------------------------------------
"$rubato" info > "$out/info.txt" 2>&1 || true
if "$rubato" info --json > "$out/info.json" 2>/dev/null; then
  usable() { jq -r "[.$1[] | select(.usable) | .name] | join(\", \")" "$out/info.json"; }
  row "rubato info: frequency back-ends usable" - "$ncpu" "$(usable frequency_backends); $(jq -r '.backend_choice | split(" (")[0]' "$out/info.json")" -
  row "rubato info: energy meters usable" - "$ncpu" "$(usable energy_meters); profile $(jq -r .profile.selected "$out/info.json")" -
else
  row "rubato info" - "$ncpu" "failed ($out/info.txt)" NO
  failed=1
fi

# --- OpenMP ground truth (tests/ompt/programs + ompt_check) ------------------------------------
omp_args() {  # program threads -> its arguments (sizes as the tests', a little larger)
  case $1 in
    fib) echo "20 $2" ;; producer) echo "10000 $2" ;; untied) echo "200 $2" ;; *) echo "$2" ;;
  esac
}
omp_label() {
  case $1 in
    fib) echo "ompt fib 20 (task + taskwait)" ;; producer) echo "ompt producer 10000 (single + tasks)" ;;
    taskgroup) echo "ompt taskgroup" ;; taskloop) echo "ompt taskloop" ;; untied) echo "ompt untied 200" ;;
  esac
}
for n in "${counts[@]}"; do
  on=$(first_cpus "$n")
  for p in "${omp_programs[@]}"; do
    dir=$out/ompt-$p-$n
    mkdir -p "$dir"
    args=$(omp_args "$p" "$n")  # split into words below
    taskset -c "$on" env -u OMP_TOOL_LIBRARIES "$omp_dir/$p" $args > "$dir/plain.txt" 2>/dev/null || true
    rc=0
    taskset -c "$on" env OMP_TOOL_LIBRARIES="$ompt_tool" RUBATO_BACKEND=dry-run RUBATO_LOG=debug \
      RUBATO_REPORT="$dir/report.json" GT_FILE="$dir/truth.txt" "$omp_dir/$p" $args > "$dir/tool.txt" 2> "$dir/stderr.txt" || rc=$?
    result="" ok=NO
    if [ $rc -ne 0 ]; then result="the run failed (exit $rc)"
    elif ! cmp -s "$dir/plain.txt" "$dir/tool.txt"; then result="output changed with the tool"
    elif "$ompt_check" --report "$dir/report.json" --truth "$dir/truth.txt" --log "$dir/stderr.txt" --flat > "$dir/check.txt" 2>&1; then
      steals=$(sed -n 's/^[0-9]* tasks, \([0-9]*\) steals.*/\1/p' "$dir/check.txt")
      result="steals ${steals:-?} = program's" ok=yes
    else
      result="$(grep -c MISMATCH "$dir/check.txt") mismatches ($dir/check.txt)"
    fi
    row "$(omp_label "$p")" "$n" "$(( n < ncpu ? n : ncpu ))" "$result" "$ok"
    verdict "$ok"
  done
done

# --- oneTBB under the preload (tests/tbb/programs/preload_ground_truth) ------------------------
tbb_label() {
  case $1 in
    fib) echo "tbb preload task_group run (fib 22)" ;; defer) echo "tbb preload task_group defer (fib 20)" ;;
    invoke) echo "tbb preload parallel_invoke (depth 6)" ;; flow) echo "tbb preload flow::graph (2000 msgs)" ;;
  esac
}
# total of a per-worker field in a report
total() { jq "[.workers[].$2] | add // 0" "$1"; }
if [ -e "$preload" ] && [ -e "$tbb_truth" ]; then
  for n in "${counts[@]}"; do
    [ "$n" -le "$ncpu" ] || continue  # the default arena has one thread per usable CPU
    on=$(first_cpus "$n")
    for c in fib defer invoke flow; do
      dir=$out/tbb-$c-$n
      mkdir -p "$dir"
      taskset -c "$on" "$tbb_truth" "$c" "$dir/plain-truth.txt" > "$dir/plain.txt" 2>/dev/null || true
      rc=0
      taskset -c "$on" env LD_PRELOAD="$preload" RUBATO_BACKEND=dry-run RUBATO_LOG=error RUBATO_REPORT="$dir/report.json" \
        "$tbb_truth" "$c" "$dir/truth.txt" > "$dir/tool.txt" 2> "$dir/stderr.txt" || rc=$?
      result="" ok=NO
      if [ $rc -ne 0 ] || [ ! -s "$dir/report.json" ]; then result="the run failed (exit $rc, $dir/stderr.txt)"
      elif ! cmp -s "$dir/plain.txt" "$dir/tool.txt"; then result="output changed with the preload"
      else
        r=$dir/report.json
        pushes=$(total "$r" pushes) pops=$(total "$r" pops) steals=$(total "$r" steals)
        stolen=$(total "$r" stolen_from) done_=$(total "$r" tasks_completed)
        balanced=$([ $((pops + steals)) -eq "$pushes" ] && [ "$stolen" -eq "$steals" ] && [ "$done_" -eq "$pushes" ] && echo 1 || echo 0)
        truth_tasks=$(sed -n 's/^tasks //p' "$dir/truth.txt") truth_steals=$(sed -n 's/^steals //p' "$dir/truth.txt")
        if [ "${truth_tasks:--1}" -ge 0 ]; then
          result="steals $steals, program's $truth_steals; tasks $pushes, program's $truth_tasks"
          [ "$steals" = "$truth_steals" ] && [ "$pushes" = "$truth_tasks" ] && [ "$balanced" = 1 ] && ok=yes
        else
          result="steals $steals of $pushes tasks, $([ "$balanced" = 1 ] && echo balanced || echo NOT balanced)"
          ok=$([ "$balanced" = 1 ] && echo n/a || echo NO)
        fi
      fi
      row "$(tbb_label "$c")" "$n" "$n" "$result" "$ok"
      verdict "$ok"
    done
  done
else
  row "tbb preload" - - "not built (no oneTBB or sanitizer build)" -
fi

# --- oneTBB linked (rubato::tbb observer; the Catch2 ground-truth tests, arenas of 1, 2, 4, 8) ---
if [ -e "$tbb_tests" ]; then
  for n in "${counts[@]}"; do
    [ "$n" -le "$ncpu" ] || continue
    for t in Tbb.GroundTruth.FibTaskGroup Tbb.GroundTruth.NestedParallelInvoke; do
      log=$out/$t-$n.txt
      if taskset -c "$(first_cpus "$n")" "$tbb_tests" "$t" > "$log" 2>&1; then ok=yes; result="every worker's counts = program's"
      else ok=NO; result="failed ($log)"; fi
      row "tbb linked ${t#Tbb.GroundTruth.} (arenas 1,2,4,8)" 1-8 "$n" "$result" "$ok"
      verdict "$ok"
    done
  done
fi

# --- overhead at all cores ---------------------------------------------------------------------
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
omp_overhead() {  # program n
  local f=$out/overhead-$1 i
  : > "$f.none"; : > "$f.tool"; : > "$f.ratio"
  for ((i = 0; i < runs; ++i)); do
    local a b
    # Interleaved, the first of the pair alternating: drift hits both alike.
    for which in $( ((i % 2)) && echo "tool none" || echo "none tool"); do
      if [ "$which" = none ]; then
        a=$(env -u OMP_TOOL_LIBRARIES OMP_NUM_THREADS="$ncpu" "$bench/ompt_overhead/$1" "$2" | sed -n 's/.*time \([0-9.]*\).*/\1/p')
        echo "$a" >> "$f.none"
      else
        b=$(OMP_TOOL_LIBRARIES="$ompt_tool" RUBATO_BACKEND=dry-run RUBATO_REPORT= OMP_NUM_THREADS="$ncpu" \
          "$bench/ompt_overhead/$1" "$2" 2>/dev/null | sed -n 's/.*time \([0-9.]*\).*/\1/p')
        echo "$b" >> "$f.tool"
      fi
    done
    awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) print b / a }' >> "$f.ratio"
  done
  local m0 m1
  m0=$(median < "$f.none") m1=$(median < "$f.tool")
  printf '%.4f s -> %.4f s, x%.3f (paired x%.3f)' "$m0" "$m1" "$(awk -v a="$m0" -v b="$m1" 'BEGIN{print b/a}')" "$(median < "$f.ratio")"
}
# fib with a task per call: the worst case for a per-task tool; fib(30) (2.7 M
# tasks) takes seconds on 2 cores, where fib(27) is enough.
fib_n=$((ncpu <= 4 ? 27 : 30))
if [ -e "$bench/ompt_overhead/ompt_overhead_fib_tasks" ]; then
  row "overhead: OMPT tool, fib_tasks $fib_n (a task per call)" "$ncpu" "$ncpu" "$(omp_overhead ompt_overhead_fib_tasks "$fib_n")" -
  row "overhead: OMPT tool, coarse_tasks 200" "$ncpu" "$ncpu" "$(omp_overhead ompt_overhead_coarse_tasks 200)" -
fi
if [ -e "$bench/tbb_overhead/tbb_overhead" ] && [ -e "$preload" ]; then
  RUBATO_REPORT= RUBATO_BACKEND=dry-run "$bench/tbb_overhead/tbb_overhead" --runs "$runs" --fib "$fib_n" --tasks 200 \
    --task-ms 1 --threads "$ncpu" --preload "$preload" > "$out/tbb_overhead.txt" 2>&1 || true
  for w in fib coarse; do
    line=$(grep -E "^$w +median preload" "$out/tbb_overhead.txt" || true)
    if [ -n "$line" ]; then
      row "overhead: oneTBB preload, $w $([ $w = fib ] && echo "$fib_n" || echo '200 x 1 ms')" "$ncpu" "$ncpu" \
        "$(echo "$line" | sed -E 's/.*preload ([0-9.]+) s, ratio ([0-9.]+) to plain oneTBB in a child \(([0-9.]+) s\) \(paired ([0-9.]+)\).*/\3 s -> \1 s, x\2 (paired x\4)/')" -
    else
      row "overhead: oneTBB preload, $w" "$ncpu" "$ncpu" "failed ($out/tbb_overhead.txt)" NO
      failed=1
    fi
  done
fi

# --- the table -----------------------------------------------------------------------------------
echo
echo "rubato scale check: $(hostname), $ncpu CPUs usable ($(jq -r '.cpu_model // "?"' "$out/info.json" 2>/dev/null)), $(date -u +%Y-%m-%dT%H:%M:%SZ), build $build"
echo "(rubato attached with RUBATO_BACKEND=dry-run; overhead: median of $runs interleaved rounds, paired = median of the per-round ratios; logs in $out)"
{
  printf 'check\tthreads\tcores\tmeasured\texact\n'
  printf '%s\n' "${rows[@]}"
} | awk -F'\t' '{ for (i = 1; i <= NF; ++i) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR }
         END { for (r = 1; r <= n; ++r) printf "%-*s  %7s  %5s  %-*s  %s\n", w[1], cell[r, 1], cell[r, 2], cell[r, 3],
                                                  w[4], cell[r, 4], cell[r, 5] }'
exit $failed
