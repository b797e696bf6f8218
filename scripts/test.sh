#!/usr/bin/env bash
# The README's test command: installs what is missing, configures, builds and
# runs every test through CTest. On a fresh Debian 12 machine it needs nothing
# but this checkout (and ../shared for the papers the docs cite).
#   scripts/test.sh   default build (every test); then under ASan+UBSan (asan)
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
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

presets=${RUBATO_TEST_PRESETS:-default asan tsan}
fuzz_seconds=${RUBATO_FUZZ_SECONDS:-}
# This script's own settings are not rubato's: left in the environment, every
# program the tests attach rubato to would warn about an unknown RUBATO_
# variable (and tests that check rubato's stderr would fail).
unset RUBATO_TEST_PRESETS RUBATO_FUZZ_SECONDS
jobs=$(nproc 2>/dev/null || echo 2)
for preset in $presets; do
  echo "== rubato tests: preset $preset ($(date -u +%T))"
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
  "${configure[@]}" >/dev/null
  cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"
  ctest --preset "$preset" -j "$jobs"
done
echo "== rubato tests: done ($(date -u +%T))"
