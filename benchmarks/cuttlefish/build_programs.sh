#!/usr/bin/env bash
# Builds the OpenMP versions of [Cuttlefish]'s six programs (UTS, SOR, Heat,
# HPCCG, miniFE, AMG) from a checkout of github.com/hipec/cuttlefish, with
# clang-16 -fopenmp (libomp-16), WITHOUT Cuttlefish's runtime, likwid or RAPL
# code, so that rubato's OMPT tool can be attached to them.
#
#   benchmarks/cuttlefish/build_programs.sh [--repo PATH|URL] [--commit REV] [--out DIR] [--jobs N]
#
#   --repo    the cuttlefish repository: a local path (a checkout or a git dir) or a URL
#             (default https://github.com/hipec/cuttlefish)
#   --commit  default 16e3781 (16e3781d54664877fafc374cf12e9566626cef87, the SC '21 artifact)
#   --out     build directory, outside rubato's tree (default /tmp/cf-build)
#   --jobs    make -j (default 2)
#
# Writes OUT/bin/{heat,heatIR,heatRR,sor,sorIR,sorRR,HPCCG,miniFE,amg,uts} and OUT/build.log.
# Nothing of the cuttlefish repository is copied into rubato; the source is
# cloned into OUT/src and changed there only by the documented steps below.
#
# How the runtime is left out: every program includes "cuttlefish.h" and calls
# cuttlefish::log_header / start / stop / log_footer, and every makefile includes
# $(CUTTLEFISH_ROOT)/include/cuttlefish.mak, which links -lcuttlefish. This script
# writes its own OUT/stub/include/cuttlefish.h (those four functions inline:
# start() and stop() print the CLOCK_MONOTONIC time to stderr, as
# "cuttlefish-stub: start|stop NS", the others do nothing) and cuttlefish.mak
# (no library), and points CUTTLEFISH_ROOT at OUT/stub. LIKWID_* (heat, sor) are left undefined, i.e. empty.
#
# Changes to the third-party source (sed, in OUT/src only), each because:
#   1. heat.cpp: nx, ny, nt are hard-coded (32768 x 32768, 200 steps: 16 GiB);
#      read them from argv[1..3] (defaults unchanged). Built with -DERROR_SUMMARY,
#      the program's own switch, so that it prints its error against the exact
#      solution (the output compared with and without rubato).
#   2. sor.cpp: prints no result; print the sum of the grid after the kernel
#      (a checksum for the comparison). Sizes already come from argv[1..2].
#   3. HPCCG/main.cpp: nx, ny, nz are hard-coded (256 x 256 x 1024); read them
#      from argv[1..3] when given (defaults unchanged).
#   UTS (-t/-a/-d/-b/-r), miniFE (-nx -ny -nz) and AMG (-problem, -n) take their
#   sizes on the command line: unchanged.
#
# Build settings (on the make command line, makefiles unchanged):
#   heat*, sor*: the six targets of AE/apps_omp/makefile.omp, compiled directly
#     with its flags (-O3 -std=c++11 -fopenmp=libomp -I./inc, -DIRREGULAR / -DREGULAR).
#   HPCCG: CXX/LINKER=clang++-16.
#   miniFE (miniFE/openmp/src): CXX=CC=clang++-16 (upstream: clang, a C driver
#     that links -lstdc++ explicitly).
#   AMG: upstream's mpic++ (Open MPI's wrapper) with OMPI_CXX=clang++-16, and
#     upstream's INCLUDE_CFLAGS with -fopenmp=libomp for -fopenmp (which under
#     mpic++'s default g++ would link libgomp, not libomp). Run as one process
#     without mpirun, as the artifact's scripts did. (hypre's -DHYPRE_SEQUENTIAL
#     MPI stubs do not build with upstream's -DHYPRE_BIGINT: no MPI_LONG_LONG.)
#   UTS (AE/apps_omp/uts, target uts = uts_shm.c, the OpenMP version):
#     OMPCC=clang++-16 (upstream clang++), RNG=BRG (upstream config.in).
set -euo pipefail

repo=https://github.com/hipec/cuttlefish
commit=16e3781
out=/tmp/cf-build
jobs=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repo) repo=$2; shift 2 ;;
    --commit) commit=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "build_programs.sh: unknown option $1 (accepted: --repo --commit --out --jobs)" >&2; exit 2 ;;
  esac
done
for tool in clang-16 clang++-16 git make; do
  command -v "$tool" >/dev/null || { echo "build_programs.sh: $tool not found (Debian: clang-16 libomp-16-dev git make)" >&2; exit 2; }
done

here=$(cd "$(dirname "$0")" && pwd)
case "$(realpath -m "$out")/" in
  "$(realpath "$here/../..")"/*) echo "build_programs.sh: --out must be outside rubato's tree" >&2; exit 2 ;;
esac
mkdir -p "$out"
out=$(realpath "$out")
src=$out/src
log=$out/build.log
: >"$log"

# --- the source at the named commit ---
rm -rf "$src"
git clone --quiet --no-checkout "$repo" "$src"
git -C "$src" -c advice.detachedHead=false checkout --quiet "$commit"
full=$(git -C "$src" rev-parse HEAD)
echo "cuttlefish $full ($(git -C "$src" log -1 --format=%ci))" | tee -a "$log"

# --- the runtime left out: a stub header and makefile fragment ---
stub=$out/stub/include
mkdir -p "$stub"
cat >"$stub/cuttlefish.h" <<'EOF'
// Written by rubato's build_programs.sh: Cuttlefish's runtime left out (no daemon, no MSR, no RAPL).
// start() and stop() bracket what Cuttlefish timed (its TIME column); they say when on stderr, in
// CLOCK_MONOTONIC nanoseconds (the clock of rubato's traces), so that trace_tool.py can cut the
// recorded trace to that window.
#pragma once
#include <iostream>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
namespace cuttlefish {
inline void stamp_(const char* what) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  fprintf(stderr, "cuttlefish-stub: %s %lld\n", what, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}
inline void start() { stamp_("start"); }
inline void stop() { stamp_("stop"); }
inline void log_header() {}
inline void log_footer() {}
}
EOF
cat >"$stub/cuttlefish.mak" <<EOF
# Written by rubato's build_programs.sh: no -lcuttlefish.
CUTTLEFISH_CXXFLAGS=-O3 -I$stub
CUTTLEFISH_LDFLAGS=
CUTTLEFISH_LDLIBS=
EOF
export CUTTLEFISH_ROOT=$out/stub

apps=$src/AE/apps_omp
# --- the documented source changes ---
sed -i -e 's/^  nx = 32768;/  nx = argc > 1 ? atoi(argv[1]) : 32768;/' \
       -e 's/^  ny = 32768;/  ny = argc > 2 ? atoi(argv[2]) : 32768;/' \
       -e 's/^  nt = 200;/  nt = argc > 3 ? atoi(argv[3]) : 200;/' "$apps/heat.cpp"
sed -i 's|^       cuttlefish::stop();|&\n       { double sum = 0; for (long k = 0; k < (long)size * size; k++) sum += G[k]; printf("SOR checksum = %.17g\\n", sum); }|' \
    "$apps/sor.cpp"
sed -i -e 's/^nx = 256;/nx = argc > 3 ? atoi(argv[1]) : 256;/' \
       -e 's/^ny = 256;/ny = argc > 3 ? atoi(argv[2]) : 256;/' \
       -e 's/^nz = 1024;/nz = argc > 3 ? atoi(argv[3]) : 1024;/' "$apps/HPCCG/main.cpp"
for check in "argv\[3\]) : 200" "SOR checksum" "argv\[3\]) : 1024"; do
  grep -rq "$check" "$apps/heat.cpp" "$apps/sor.cpp" "$apps/HPCCG/main.cpp" ||
    { echo "build_programs.sh: a source change did not apply ($check): another commit?" >&2; exit 1; }
done

bin=$out/bin
mkdir -p "$bin"
cxx=clang++-16
flags="-O3 -std=c++11 -fopenmp=libomp -I$apps/inc -I$stub"
build() { echo "== $1" | tee -a "$log"; shift; "$@" >>"$log" 2>&1 || { echo "build_programs.sh: failed, see $log" >&2; exit 1; }; }

build heat   $cxx $flags -DERROR_SUMMARY -o "$bin/heat" "$apps/heat.cpp"
build heatIR $cxx $flags -DERROR_SUMMARY -DIRREGULAR -o "$bin/heatIR" "$apps/heat.cpp"
build heatRR $cxx $flags -DERROR_SUMMARY -DREGULAR -o "$bin/heatRR" "$apps/heat.cpp"
build sor    $cxx $flags -o "$bin/sor" "$apps/sor.cpp"
build sorIR  $cxx $flags -DIRREGULAR -o "$bin/sorIR" "$apps/sor.cpp"
build sorRR  $cxx $flags -DREGULAR -o "$bin/sorRR" "$apps/sor.cpp"

build HPCCG make -C "$apps/HPCCG" -j"$jobs" CXX=$cxx LINKER=$cxx
cp "$apps/HPCCG/HPCCG" "$bin/HPCCG"

build miniFE make -C "$apps/miniFE/openmp/src" -j1 CXX=$cxx CC=$cxx
cp "$apps/miniFE/openmp/src/miniFE.x" "$bin/miniFE" 2>/dev/null || cp "$apps/miniFE/openmp/src/miniFE" "$bin/miniFE"

command -v mpic++ >/dev/null || { echo "build_programs.sh: mpic++ not found (Debian: libopenmpi-dev)" >&2; exit 2; }
amg_flags="-O3 -D__STRICT_ANSI__ -DTIMER_USE_MPI -DHYPRE_USING_OPENMP -fopenmp=libomp -DHYPRE_HOPSCOTCH -DHYPRE_USING_PERSISTENT_COMM -DHYPRE_BIGINT -Wno-deprecated"
build amg env OMPI_CXX=$cxx make -C "$apps/AMG" -j"$jobs" CC=mpic++ "INCLUDE_CFLAGS=$amg_flags" "INCLUDE_LFLAGS=-O3 -lm -fopenmp=libomp"
cp "$apps/AMG/test/amg" "$bin/amg"

build uts make -C "$apps/uts" uts OMPCC=$cxx "OMPCC_OPTS=-fopenmp=libomp -Wno-deprecated" RNG=BRG
cp "$apps/uts/uts" "$bin/uts"

for p in "$bin"/*; do  # every program on libomp (what rubato's OMPT tool attaches to), none on libgomp
  readelf -d "$p" | grep -q 'NEEDED.*libomp\.so' && ! readelf -d "$p" | grep -q 'NEEDED.*libgomp' ||
    { echo "build_programs.sh: $p is not linked to libomp alone" >&2; exit 1; }
done
echo "built: $(ls "$bin" | tr '\n' ' ')from cuttlefish $full" | tee -a "$log"
