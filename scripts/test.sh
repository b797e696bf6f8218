#!/usr/bin/env bash
# The README's test command: installs what is missing, configures, builds and
# runs every test through CTest. On a fresh Debian 12 machine it needs nothing
# but this checkout (and ../shared for the papers the docs cite).
#   scripts/test.sh   default build (every test), then the unit, reliability,
#                     fuzz-corpus and OpenMP end-to-end tests under ASan+UBSan
#                     (asan) — about 20 minutes on 2 cores, CI's budget is 25
#   RUBATO_TEST_PRESETS="default asan fuzz" scripts/test.sh   also each libFuzzer
#                     target for RUBATO_FUZZ_SECONDS (default 20; +6 minutes)
#   RUBATO_TEST_PRESETS="default asan tsan fuzz" scripts/test.sh   also TSan (not yet
#                     clean: tests/RELIABILITY.md, "Sanitizers")
#   RUBATO_TEST_PRESETS=default scripts/test.sh   the default build only
# Sanitizer builds leave out the benchmarks (their presets); the fuzz preset
# builds only the fuzz targets. tests/RELIABILITY.md says what each covers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

presets=${RUBATO_TEST_PRESETS:-default asan}
jobs=$(nproc 2>/dev/null || echo 2)
for preset in $presets; do
  echo "== rubato tests: preset $preset ($(date -u +%T))"
  configure=(cmake --preset "$preset")
  targets=()
  if [ "$preset" = fuzz ]; then
    configure+=(-DRUBATO_FUZZ_SECONDS="${RUBATO_FUZZ_SECONDS:-20}")
    targets=(--target rubato_fuzzers)
  fi
  "${configure[@]}" >/dev/null
  cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"
  ctest --preset "$preset" -j "$jobs"
done
echo "== rubato tests: done ($(date -u +%T))"
