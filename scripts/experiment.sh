#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the
# main experiment on the best backend this machine allows.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
build/default/benchmarks/engine_bench
