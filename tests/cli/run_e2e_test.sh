#!/usr/bin/env bash
# End-to-end tests of `rubato run` / `rubato compare` with a fake instrumented
# program (tests/cli/fake_program.cpp). Usage: run_e2e_test.sh RUBATO FAKE CASE
set -uo pipefail
rubato=$1 fake=$2 case=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# rubato run refuses RUBATO_* settings its trials would not accept: start from none.
for v in $(compgen -e | grep '^RUBATO_'); do unset "$v"; done
touch "$tmp/fake_tool.so"

# A profile named "fake" (the generic one, renamed): rubato run refuses a profile it cannot load.
mkdir -p "$tmp/profiles"
cp "$here/../../power/profiles/generic.json" "$tmp/profiles/fake.json"

case "$case" in
basic)
  RUBATO_PROFILE_DIR="$tmp/profiles" "$rubato" run --policies baseline,hermes,workload --trials 3 --skip 1 \
      --workers 1,2 --out "$tmp/r" --tool "$tmp/fake_tool.so" --backend dry-run --profile fake \
      -- "$fake" --log "$tmp/log" --fail-policy workload --silent-policy hermes --threads '{workers}' \
      >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/out" "$tmp/err"
  [ $rc = 1 ] || fail "exit status $rc, expected 1 (some runs failed)"
  [ "$(wc -l <"$tmp/log")" = 18 ] || fail "expected 18 runs, log has $(wc -l <"$tmp/log")"
  # Interleaved: trial 0 runs baseline,hermes,workload; trial 1 starts with hermes.
  order=$(awk '{print $1 "/" $2}' "$tmp/log" | tr '\n' ' ')
  expected="baseline/1 hermes/1 workload/1 baseline/2 hermes/2 workload/2 hermes/1 workload/1 baseline/1 hermes/2 workload/2 baseline/2 workload/1 baseline/1 hermes/1 workload/2 baseline/2 hermes/2 "
  [ "$order" = "$expected" ] || fail "run order: $order"
  grep -q "^baseline 2 $tmp/fake_tool.so .* --threads 2$" "$tmp/log" || fail "tool path or {workers} not passed"
  idx="$tmp/r/rubato-index.json"
  [ -f "$idx" ] || fail "no index"
  [ "$(grep -c '"trial"' "$idx")" = 18 ] || fail "index does not list 18 runs"
  grep -q '"error": "no report written' "$idx" || fail "a silent run has no stub entry"
  grep -q '"exit_status": 3' "$tmp/r/w2/workload/trial-01/report.r0.json" || fail "exit status not stored in the report"
  grep -q '"trial": 1' "$tmp/r/w2/workload/trial-01/report.r0.json" || fail "trial not stored in the report"
  [ -s "$tmp/r/w1/baseline/trial-00/stdout.txt" ] || fail "program output not kept"
  grep -q "fake_program --log" "$tmp/out" || fail "no table for the workload"
  grep -q " — 2 workers" "$tmp/out" || fail "no 2-worker block"
  grep -q "failed runs (kept, not averaged): 12" "$tmp/out" || fail "failed runs not listed"
  grep -q "^rubato run: \[1/18\] trial 1/3 baseline workers=1: " "$tmp/err" || fail "no plain progress lines"
  grep -q "backend dry-run, profile fake, energy modeled:fake" "$tmp/out" || fail "backend/profile/source line"
  # compare on the same directory: JSON and CSV for scripts
  "$rubato" compare --skip 1 --json "$tmp/r" >"$tmp/json" || fail "compare --json"
  grep -q '"used": 2' "$tmp/json" || fail "compare --json: 2 trials used per baseline group"
  "$rubato" compare --skip 1 --csv "$tmp/r" >"$tmp/csv" 2>"$tmp/csv_err" || fail "compare --csv"
  [ "$(wc -l <"$tmp/csv")" = 7 ] || fail "CSV: header + 6 rows expected"
  grep -q "failed run (not averaged)" "$tmp/csv_err" || fail "CSV mode: failures on stderr"
  # A second run into the same directory is refused
  "$rubato" run --trials 1 --skip 0 --out "$tmp/r" -- "$fake" 2>"$tmp/err2"
  [ $? = 2 ] || fail "reusing --out must be refused"
  ;;
ranks)
  "$rubato" run --policies baseline,hermes --trials 2 --skip 0 --workers 2 --out "$tmp/r" --tool "$tmp/fake_tool.so" \
      -- "$fake" --ranks 3 >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "run failed"; }
  cat "$tmp/out"
  [ "$(ls "$tmp/r/w2/hermes/trial-00/" | grep -c '^report.r[0-2].json$')" = 3 ] || fail "3 rank reports expected"
  "$rubato" compare --skip 0 --json "$tmp/r" >"$tmp/json" || fail "compare"
  grep -q '"ranks": 3' "$tmp/json" || fail "ranks not merged into one trial"
  grep -q "multi-rank trials merged" "$tmp/out" || fail "merge not reported"
  ;;
likwid)
  "$rubato" run --policies baseline,hermes --trials 2 --skip 0 --workers 2 --out "$tmp/r" --tool "$tmp/fake_tool.so" \
      --likwid ENERGY --likwid-command "$here/fake_likwid_perfctr.sh" -- "$fake" >"$tmp/out" 2>"$tmp/err" \
      || { cat "$tmp/out" "$tmp/err"; fail "run failed"; }
  cat "$tmp/out"
  grep -q '"likwid.energy_j": 154.8921' "$tmp/r/w2/hermes/trial-01/report.r0.json" || fail "likwid energy not merged"
  grep -q "likwid.memory" "$tmp/r/w2/hermes/trial-01/report.r0.json" && fail "ENERGY run has no MEM figures"
  grep -q "likwid.energy_j:  baseline 154.9 ± 0" "$tmp/out" || fail "compare does not show the likwid energy"
  ;;
likwid-unusable)
  FAKE_LIKWID_REFUSE=1 "$rubato" run --trials 1 --skip 0 --out "$tmp/r" --tool "$tmp/fake_tool.so" \
      --likwid ENERGY --likwid-command "$here/fake_likwid_perfctr.sh" -- "$fake" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 1 ] || fail "exit status $rc, expected 1"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "expected one line saying why"
  grep -q "cannot work here: .*Cannot get access to MSRs" "$tmp/err" || fail "reason not given"
  [ -e "$tmp/r" ] && fail "nothing may run when likwid was asked for and cannot work"
  ;;
usage)
  "$rubato" run --trials 2 --skip 2 -- "$fake" 2>"$tmp/err"; [ $? = 2 ] || fail "skip >= trials accepted"
  "$rubato" run --policies baseline,turbo -- "$fake" 2>"$tmp/err"; [ $? = 2 ] || fail "bad policy accepted"
  grep -q "turbo" "$tmp/err" || fail "bad policy not named"
  "$rubato" run --trials 1 2>"$tmp/err"; [ $? = 2 ] || fail "missing program accepted"
  "$rubato" compare "$tmp/nothing-here" 2>"$tmp/err"; [ $? = 1 ] || fail "compare of a missing dir must fail"
  "$rubato" compare 2>"$tmp/err"; [ $? = 2 ] || fail "compare without a directory must be a usage error"
  "$rubato" run --trials 1 --skip 0 --out "$tmp/x" --tool "$tmp/fake_tool.so" -- /nonexistent/prog >"$tmp/out" 2>"$tmp/err"
  [ $? = 1 ] || fail "a program that cannot start is a failed run"
  grep -q "cannot start /nonexistent/prog" "$tmp/err" || { cat "$tmp/err"; fail "start failure not explained"; }
  ;;
refused)
  # A value a trial's tool would replace or could not use: exit status 2, one
  # line naming the option or variable, the value and what is accepted, and
  # nothing run, nothing created.
  refused() {  # refused WHAT-THE-MESSAGE-SAYS ENV... -- RUN-OPTIONS...
    local says=$1 env=()
    shift
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    env "${env[@]}" "$rubato" run --trials 1 --skip 0 --out "$tmp/never" --tool "$tmp/fake_tool.so" "$@" \
        -- "$fake" --log "$tmp/log" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    cat "$tmp/err"
    [ $rc = 2 ] || fail "$*: exit status $rc, expected 2"
    grep -qF "rubato run: $says" "$tmp/err" || fail "$*: the message does not say '$says'"
    [ "$(grep -c '^rubato run: ' "$tmp/err")" = 1 ] || fail "$*: expected one line"
    [ -e "$tmp/never" ] && fail "$*: the results directory was created"
    [ -e "$tmp/log" ] && fail "$*: a trial ran"
    return 0
  }
  refused "--backend 'emulatd' is not a frequency back-end; accepted: auto | sysfs | likwid | emulated | dry-run" \
      -- --backend emulatd
  refused "--profile 'opteron-9999': profile 'opteron-9999' not found" -- --profile opteron-9999
  grep -q "accepted: auto, a profile name (.*generic.*) or a JSON file" "$tmp/err" || fail "profiles not listed"
  refused "RUBATO_BACKEND='emulatd' is not accepted; accepted: auto | sysfs | likwid | emulated | dry-run" \
      RUBATO_BACKEND=emulatd --
  refused "RUBATO_PROFILE 'opteron-9999': profile 'opteron-9999' not found" RUBATO_PROFILE=opteron-9999 --
  refused "RUBATO_UNCORE='fast' is not accepted" RUBATO_UNCORE=fast --
  refused "unknown variable RUBATO_BAKCEND in the environment" RUBATO_BAKCEND=emulated --
  refused "--launcher-kind 'lam' is not a launcher kind; accepted: openmpi | mpich | slurm | inherit" \
      -- --launcher "mpirun -np 2" --launcher-kind lam
  mkdir -p "$tmp/no-cpufreq"
  refused "--backend sysfs cannot work here (no cpufreq policies" RUBATO_SYSFS_ROOT="$tmp/no-cpufreq" \
      RUBATO_STATE_DIR="$tmp/state" -- --backend sysfs
  # What each run sets itself (RUBATO_POLICY, RUBATO_REPORT) is the run's: not refused.
  RUBATO_POLICY=turbo "$rubato" run --policies baseline --trials 1 --skip 0 --out "$tmp/ok" --tool "$tmp/fake_tool.so" \
      --backend dry-run --profile generic -- "$fake" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "valid run refused"; }
  ;;
*) fail "unknown case $case" ;;
esac
echo "ok: $case"
