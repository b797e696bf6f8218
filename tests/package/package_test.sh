#!/usr/bin/env bash
# Installs the build tree into a temp prefix, then configures, builds and runs
# an outside project against it with find_package(rubato).
set -euo pipefail
build_dir=$1 source_dir=$2 compiler=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
# find_package(rubato) users inherit only what the installed targets need:
# the header-only libraries rubato's own sources use (Eigen in core, CLI11
# and Boost.Math in the command line, Google Benchmark in the benchmarks,
# nlohmann_json) are not among them.
config_dir=$(dirname "$(find "$work/prefix" -name rubatoConfig.cmake | head -1)")
if grep -rnE 'Eigen3|Boost|CLI11|benchmark::|nlohmann' "$config_dir"; then
  echo "package test: the installed rubato CMake package names a build-only dependency (above)" >&2
  exit 1
fi
cmake -S "$source_dir/tests/package/consumer" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
if [ -x "$work/build/consumer_tbb" ]; then "$work/build/consumer_tbb"; fi
# The installed pieces a user expects are there.
test -x "$work/prefix/bin/rubato"
"$work/prefix/bin/rubato" --version
if [ -f "$build_dir/frontends/ompt/librubato_ompt.so" ]; then test -f "$work/prefix/lib/librubato_ompt.so"; fi
