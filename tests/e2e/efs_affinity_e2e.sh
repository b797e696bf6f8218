#!/usr/bin/env bash
# End-to-end tests of the efs and affinity controllers on the memory-bound
# synthetic kernel (benchmarks/kernels memsynth): each run under rubato must
# print the same result line and exit with the same status as the run without
# it, and the report must show what the controller did.
# Usage: efs_affinity_e2e.sh CASE OMPT_TOOL MEMSYNTH_OMP MEMSYNTH_TBB_RUBATO DATA_DIR RUBATO
set -uo pipefail
case=$1 tool=$2 omp=$3 tbb=$4 data=$5 rubato=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Small and quick: 2 M fragments of a chase through 64 MiB, ~0.5 s of kernel.
args=(--n 2000000 --compute 8 --buffer-mib 64)

# run NAME PROGRAM THREADS [VAR=VALUE...]: the program without rubato, then
# with the variables given; stdout and exit status must match.
run() {
  local name=$1 program=$2 threads=$3
  shift 3
  "$program" "${args[@]}" --threads "$threads" >"$tmp/$name.plain.out" 2>"$tmp/$name.plain.err"
  local plain=$?
  env "$@" RUBATO_PROFILE=i5-2500 RUBATO_REPORT="$tmp/$name.json" \
      "$program" "${args[@]}" --threads "$threads" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local tooled=$?
  cat "$tmp/$name.err" >&2
  [ "$plain" = 0 ] || fail "$name: the program alone exited $plain"
  [ "$tooled" = "$plain" ] || fail "$name: exit status $tooled under rubato, $plain without"
  cmp -s "$tmp/$name.plain.out" "$tmp/$name.out" || fail "$name: result differs: $(cat "$tmp/$name.out")"
  [ -s "$tmp/$name.json" ] || fail "$name: no report"
}
# q NAME FILTER: a jq query on the report of run NAME.
q() { jq -r "$2" "$tmp/$1.json"; }
omp_env=(OMP_TOOL_LIBRARIES="$tool")

case "$case" in
efs_omp)
  # A recorded memory-bound phase ([EFS] §4): the second worker is not
  # admitted, so it really parks at its task scheduling points.
  run efs "$omp" 2 "${omp_env[@]}" RUBATO_POLICY=efs RUBATO_COUNTERS=replay:"$data/efs_memory_phase.csv"
  q efs '"efs: parks " + (.throttle_events|map(select(.parked))|length|tostring) + ", throttled_s " + ([.workers[].throttled_s]|map(tostring)|join(" "))'
  [ "$(q efs .policy.parameters.efs_actuator)" = ompt-park ] || fail "actuator is not ompt-park"
  [ "$(q efs '[.workers[].throttled_s]|add > 0')" = true ] || fail "no worker spent time parked"
  [ "$(q efs '.throttle_events|map(select(.parked))|length > 0')" = true ] || fail "no park event"
  q efs '.throttle_events[0].reason' | grep -q "not below the admission threshold" || fail "first park is not the admission test"
  [ "$(q efs '.throttle_events|map(if .parked then 1 else -1 end)|add')" = 0 ] || fail "a worker left parked"
  ;;
efs_tbb)
  # oneTBB: the concurrency limit drops while the phase lasts (count only).
  run efs_tbb "$tbb" 2 RUBATO_POLICY=efs RUBATO_COUNTERS=replay:"$data/efs_memory_phase.csv"
  q efs_tbb '"efs (tbb): parks " + (.throttle_events|map(select(.parked))|length|tostring) + ", held back s " + ([.workers[].throttled_s]|add|tostring)'
  [ "$(q efs_tbb .policy.parameters.efs_actuator)" = tbb-concurrency ] || fail "actuator is not tbb-concurrency"
  [ "$(q efs_tbb '.throttle_events|map(select(.parked))|length > 0')" = true ] || fail "no park event"
  q efs_tbb '.notes[]' | grep -q "sets how many threads run, not which" || fail "the count-only limit is not noted"
  ;;
affinity_proc)
  # Only /proc CPU times here: utilisation-only mode, workers bound, masks put back.
  run aff "$omp" 2 "${omp_env[@]}" RUBATO_POLICY=affinity RUBATO_COUNTERS=proc
  q aff '"affinity (proc): mode " + .policy.parameters.affinity_mode + ", intervals " + .policy.parameters.control_intervals + ", migrations " + (.migrations|length|tostring)'
  q aff '.migrations[]|"  t=\(.t_s) worker \(.worker) cpu \(.from_cpu) -> \(.to_cpu): \(.reason)"'
  [ "$(q aff .policy.parameters.affinity_mode)" = utilisation_only ] || fail "not utilisation-only"
  [ "$(q aff .policy.parameters.counters)" = proc ] || fail "counters are not proc"
  [ "$(q aff '.policy.parameters.control_intervals|tonumber > 0')" = true ] || fail "the controller never ran"
  [ "$(q aff '.migrations|type')" = array ] || fail "no migrations list"
  q aff '.notes[]' | grep -q "^affinity: put back the CPU masks" || fail "moved threads' masks not put back"
  ;;
affinity_replay)
  # Recorded CPU times: workers 0 and 2 saturate CPU 0 while CPU 1 idles, for
  # longer than k = 4 intervals: one of them really moves to CPU 1.
  run aff_r "$omp" 3 "${omp_env[@]}" RUBATO_POLICY=affinity RUBATO_COUNTERS=replay:"$data/affinity_imbalance.csv"
  q aff_r '.migrations[]|"affinity (replay): t=\(.t_s) worker \(.worker) cpu \(.from_cpu) -> \(.to_cpu): \(.reason)"'
  [ "$(q aff_r '.migrations|length')" = 1 ] || fail "expected exactly one migration"
  [ "$(q aff_r '.migrations[0]|.from_cpu == 0 and .to_cpu == 1 and (.worker == 0 or .worker == 2)')" = true ] ||
    fail "the migration is not a saturated-CPU worker to the idle CPU"
  q aff_r '.migrations[0].reason' | grep -q "load_balance" || fail "not a load-balance move"
  ;;
missing_source)
  # efs needs memory traffic; proc and (on a VM) papi do not count it: one
  # line at start, and the run is the baseline.
  for src in proc papi; do
    run "miss_$src" "$omp" 2 "${omp_env[@]}" RUBATO_POLICY=efs RUBATO_COUNTERS=$src
    lines=$(grep -c "^rubato: efs is off (" "$tmp/miss_$src.err")
    if [ "$src" = papi ] && [ "$lines" = 0 ] && [ "$(q "miss_$src" '.throttle_events|length')" != 0 ]; then
      echo "papi counts memory traffic on this machine: skipped" >&2
      continue
    fi
    [ "$lines" = 1 ] || fail "$src: $lines 'efs is off' lines, expected 1"
    grep "^rubato: efs is off (" "$tmp/miss_$src.err" | grep -q "; the run is baseline$" || fail "$src: fallback not named"
    [ "$(q "miss_$src" '.throttle_events|length')" = 0 ] || fail "$src: throttled without counters"
    q "miss_$src" '.notes[]' | grep -q "^efs is off (" || fail "$src: the report does not say efs was off"
  done
  ;;
mix_efs)
  # `rubato run --mix`: two memory-bound programs (a recorded phase): efs
  # stops one whole program at a time (SIGSTOP / SIGCONT) and both finish with
  # the results they print alone.
  p0=("$omp" "${args[@]}" --threads 1 --seed 1) p1=("$omp" "${args[@]}" --threads 1 --seed 2)
  "${p0[@]}" >"$tmp/alone0" 2>/dev/null || fail "program 0 alone failed"
  "${p1[@]}" >"$tmp/alone1" 2>/dev/null || fail "program 1 alone failed"
  RUBATO_COUNTERS=replay:"$data/efs_mix_two_heavy.csv" "$rubato" run --mix "${p0[*]}; ${p1[*]}" \
      --policies baseline,efs --trials 1 --skip 0 --workers 1 --profile i5-2500 --out "$tmp/mix" --timeout 60 \
      >"$tmp/mix.out" 2>"$tmp/mix.err" || { cat "$tmp/mix.out" "$tmp/mix.err"; fail "rubato run --mix failed"; }
  for policy in baseline efs; do
    d="$tmp/mix/w1/$policy/trial-00"
    cmp -s "$tmp/alone0" "$d/stdout.p0.txt" || fail "$policy: program 0's result differs"
    cmp -s "$tmp/alone1" "$d/stdout.p1.txt" || fail "$policy: program 1's result differs"
  done
  cp "$tmp/mix/w1/efs/trial-00/report.r0.json" "$tmp/mix_efs.json"
  q mix_efs '"mix efs: stops " + (.throttle_events|map(select(.parked))|length|tostring) + ", stopped s " + ([.workers[].throttled_s]|map(tostring)|join(" ")) + ", wall " + (.wall_s|tostring)'
  [ "$(q mix_efs .policy.parameters.efs_actuator)" = sigstop ] || fail "actuator is not sigstop"
  [ "$(q mix_efs '[.workers[].throttled_s]|add > 0')" = true ] || fail "no program spent time stopped"
  [ "$(q mix_efs '.throttle_events|map(if .parked then 1 else -1 end)|add')" = 0 ] || fail "a program left stopped"
  [ "$(jq '.throttle_events|length' "$tmp/mix/w1/baseline/trial-00/report.r0.json")" = 0 ] || fail "baseline stopped a program"
  ;;
mix_affinity)
  # `rubato run --mix` with affinity on /proc times: whole programs bound to CPUs.
  RUBATO_COUNTERS=proc "$rubato" run --mix "$omp ${args[*]} --threads 2; $omp ${args[*]} --threads 2 --seed 2" \
      --policies affinity --trials 1 --skip 0 --workers 2 --profile i5-2500 --out "$tmp/mixa" --timeout 60 \
      >"$tmp/mixa.out" 2>"$tmp/mixa.err" || { cat "$tmp/mixa.out" "$tmp/mixa.err"; fail "rubato run --mix failed"; }
  cp "$tmp/mixa/w2/affinity/trial-00/report.r0.json" "$tmp/mix_aff.json"
  q mix_aff '"mix affinity (proc): mode " + .policy.parameters.affinity_mode + ", intervals " + .policy.parameters.control_intervals + ", migrations " + (.migrations|length|tostring)'
  [ "$(q mix_aff .policy.parameters.affinity_mode)" = utilisation_only ] || fail "not utilisation-only"
  [ "$(q mix_aff '.notes|map(select(endswith("exit status 0")))|length')" = 2 ] || fail "a program failed"
  ;;
mix_interrupted)
  # rubato interrupted while efs holds a program stopped: every program is
  # continued and ends by the forwarded SIGTERM (none is left stopped behind
  # rubato, none needs the SIGKILL that follows 2 s later).
  marker=$((RANDOM * 32768 + RANDOM + 1000))
  long=("$omp" --n 400000000 --compute 8 --buffer-mib 64 --threads 1)
  # The two-program memory-bound recording, 30 s long: efs keeps one stopped.
  { grep -v '^[0-9]' "$data/efs_mix_two_heavy.csv"
    for i in $(seq 0 2999); do printf '%s,chip,0.01,1.47e+06,0,\n%s,0,,,,735000\n%s,1,,,,735000\n' $i $i $i; done
  } >"$tmp/heavy_30s.csv"
  RUBATO_COUNTERS=replay:"$tmp/heavy_30s.csv" "$rubato" run \
      --mix "${long[*]} --seed $marker; ${long[*]} --seed $((marker + 1))" --policies efs --trials 1 --skip 0 \
      --workers 1 --profile i5-2500 --out "$tmp/mixi" >"$tmp/mixi.out" 2>"$tmp/mixi.err" &
  runner=$!
  # The two programs: their command lines end with their seed (rubato's own
  # names both seeds, but not at its end). Each wait is bounded (20 s).
  programs="--seed ($marker|$((marker + 1)))\$"
  for _ in $(seq 400); do
    [ "$(pgrep -f -c -- "$programs")" = 2 ] && break
    sleep 0.05
  done
  stopped=0
  for _ in $(seq 400); do  # inside the recorded phase one program is stopped at any time
    pids=$(pgrep -d, -f -- "$programs")
    [ -n "$pids" ] && stopped=$(ps -o stat= -p "$pids" | grep -c T)
    [ "$stopped" -ge 1 ] && break
    sleep 0.05
  done
  t0=$(date +%s%N)
  kill -TERM "$runner"
  wait "$runner"
  rc=$?
  took_ms=$((($(date +%s%N) - t0) / 1000000))
  for _ in $(seq 400); do
    [ "$(pgrep -f -c -- "$programs")" = 0 ] && break
    sleep 0.05
  done
  left=$(pgrep -f -c -- "$programs")
  echo "mix interrupted: $stopped program(s) stopped when rubato got SIGTERM; rubato exit $rc after $took_ms ms; programs left: $left"
  [ "$stopped" -ge 1 ] || fail "no program was stopped when rubato was interrupted"
  [ "$rc" = 143 ] || fail "rubato exit status $rc, expected 143 (128 + SIGTERM)"
  [ "$left" = 0 ] || fail "$left program(s) still there after rubato ended"
  # How each program ended (rubato's report): by the forwarded SIGTERM (143),
  # not by the SIGKILL (137) a stopped program that was never continued gets
  # 2 s later. (How long that took depends on the machine's load, not on rubato.)
  report="$tmp/mixi/w1/efs/trial-00/report.r0.json"
  [ -s "$report" ] || fail "no report from the interrupted run"
  ends=$(jq -r '[.notes[] | select(startswith("program ")) | sub(".*: "; "")] | join(", ")' "$report")
  echo "programs ended: $ends"
  [ "$ends" = "exit status 143, exit status 143" ] || fail "the programs ended: $ends (expected SIGTERM's 143 each)"
  ;;
*)
  fail "unknown case $case"
  ;;
esac
echo "ok: $case"
