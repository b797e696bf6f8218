#!/usr/bin/env bash
# The README's test command: installs what is missing, configures, builds and
# runs every test through CTest. On a fresh Debian 12 machine it needs nothing
# but this checkout (and ../shared for the papers the docs cite).
#   scripts/test.sh            default build (unit + end-to-end tests)
#   RUBATO_TEST_PRESETS="default asan tsan" scripts/test.sh   also under sanitizers
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

presets=${RUBATO_TEST_PRESETS:-default}
jobs=$(nproc 2>/dev/null || echo 2)
for preset in $presets; do
  echo "== rubato tests: preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
