#!/usr/bin/env bash
# The README's test command: installs what is missing, configures, builds and
# runs every test through CTest. On a fresh Debian 12 machine it needs nothing
# but this checkout.
#   scripts/test.sh   default build (every test) and the style / lint check of
#                     the files the change touches (scripts/check-style.sh); then under ASan+UBSan (asan)
#                     the unit, reliability and OpenMP end-to-end tests and each
#                     libFuzzer target for RUBATO_FUZZ_SECONDS (default 15)
#                     from its kept corpus; then under TSan (tsan) the core,
#                     power, OpenMP, TBB and reliability tests — CI's budget is
#                     25 minutes on 2 cores (tests/RELIABILITY.md, "Sanitizers")
#   RUBATO_TEST_PRESETS=default scripts/test.sh   the default build only
#   RUBATO_TEST_PRESETS=fuzz scripts/test.sh      the fuzz targets alone (their
#                     own build, nothing else)
# Sanitizer builds leave out the benchmarks (their presets); the tsan stage
# builds only what its tests run (target rubato_tsan_targets).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || { echo "rubato tests: scripts/setup.sh failed" >&2; exit 1; }

presets=${RUBATO_TEST_PRESETS:-default asan tsan}
fuzz_seconds=${RUBATO_FUZZ_SECONDS:-}
# This script's own settings are not rubato's: left in the environment, every
# program the tests attach rubato to would warn about an unknown RUBATO_
# variable (and tests that check rubato's stderr would fail).
unset RUBATO_TEST_PRESETS RUBATO_FUZZ_SECONDS
jobs=$(nproc 2>/dev/null || echo 2)
# Every stage runs even when an earlier one failed (one failure must not hide
# the next); the summary at the end has one line per stage, and the exit
# status is non-zero when any stage failed.
summary=()
failed=0
for preset in $presets; do
  echo "== rubato tests: preset $preset ($(date -u +%T))"
  start=$(date +%s)
  configure=(cmake --preset "$preset")
  targets=()
  case $preset in
    asan) configure+=(-DRUBATO_FUZZ_SECONDS="${fuzz_seconds:-15}") ;;
    fuzz)
      configure+=(-DRUBATO_FUZZ_SECONDS="${fuzz_seconds:-25}")
      targets=(--target rubato_fuzzers)
      ;;
    tsan) targets=(--target rubato_tsan_targets) ;;
  esac
  log=build/$preset/rubato-ctest.log
  if ! "${configure[@]}" >/dev/null; then
    result="FAILED (configure)"
  elif ! cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"; then
    result="FAILED (build)"
  else
    ctest --preset "$preset" -j "$jobs" 2>&1 | tee "$log"
    if [ "${PIPESTATUS[0]}" = 0 ]; then
      result="passed: $(grep -E '^[0-9]+% tests passed' "$log" | tail -1)"
    else
      result="FAILED: $(grep -E '^[0-9]+% tests passed' "$log" | tail -1) (list: $log)"
    fi
  fi
  case $result in FAILED*) failed=1 ;; esac
  summary+=("$(printf '%-8s %5ss  %s' "$preset" "$(($(date +%s) - start))" "$result")")
  # The style and lint check of the files the change touches: needs the
  # default build's compile_commands.json.
  if [ "$preset" = default ]; then
    start=$(date +%s)
    if scripts/check-style.sh; then style="passed"; else style="FAILED (scripts/check-style.sh)"; failed=1; fi
    summary+=("$(printf '%-8s %5ss  %s' style "$(($(date +%s) - start))" "$style")")
  fi
done
echo "== rubato tests: done ($(date -u +%T))"
printf '%s\n' "${summary[@]}"
exit "$failed"
