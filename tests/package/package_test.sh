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
# Only public headers are installed, and each stands on its own: every one
# compiles alone against the installed tree (an installed header that includes
# one left uninstalled fails here). detail/ headers are parts of the header
# that includes them, not entry points.
headers=0
while IFS= read -r header; do
  rel=${header#"$work/prefix/include/"}
  if ! echo "#include <$rel>" | "$compiler" -std=c++20 -fsyntax-only -x c++ -I"$work/prefix/include" - \
       2>"$work/header.err"; then
    echo "package test: the installed header <$rel> does not compile on its own:" >&2
    head -5 "$work/header.err" >&2
    exit 1
  fi
  headers=$((headers + 1))
done < <(find "$work/prefix/include/rubato" -name '*.hpp' -not -path '*/detail/*' | sort)
# The platform's internals (calibration, vendor libraries, state files) stay
# out of the package.
for internal in rubato/power/calibrate rubato/power/likwid rubato/power/state rubato/power/os; do
  if [ -e "$work/prefix/include/$internal" ]; then
    echo "package test: internal headers installed: $internal" >&2
    exit 1
  fi
done
echo "package test: $headers installed headers compile on their own"
