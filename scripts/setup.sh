#!/usr/bin/env bash
# Installs every Debian package rubato's build, tests and experiments need.
# Idempotent: silent when everything is present. Needs root (or sudo) only
# when something is missing.
set -euo pipefail

packages=(
  clang-16 lld-16 libomp-16-dev libclang-rt-16-dev   # one compiler for the tree; libomp has OMPT
  llvm-16                                           # llvm-symbolizer-16: the sanitizer stages' stacks (CMakePresets.json)
  cmake ninja-build pkg-config make
  ccache                                            # rebuilds across checkouts and CI's fresh clones
  libtbb-dev                                        # oneTBB 2021.8
  libtbb-doc                                        # oneTBB's examples, run under the preload by the tests
  libpapi-dev likwid                                # counter/energy back-ends (optional at runtime)
  catch2 nlohmann-json3-dev                         # tests, report JSON
  libcli11-dev                                      # the rubato command line (CLI11)
  libboost-math-dev                                 # Student-t quantiles (rubato compare)
  libeigen3-dev                                     # EFS model's Newton step (LU)
  libbenchmark-dev                                  # engine_bench, sim_bench (Google Benchmark)
  clang-format-16 clang-tidy-16                     # scripts/check-style.sh (the test command runs it)
  g++                                               # the libomp-via-g++ attach test
  procps util-linux                                 # ps, taskset for tests
  jq                                                # e2e tests read reports
  openmpi-bin libopenmpi-dev                        # rubato run --launcher tests, examples/mpi_openmp
  slurmd slurmctld slurm-client munge               # E2e.Launcher.SlurmSrunOnThisHost: a private Slurm on this host
  python3                                           # benchmarks/sim/*.py tables
  valgrind                                          # benchmarks/*/instructions_per_task.sh (callgrind)
  librsvg2-bin                                      # rsvg-convert: rubato report's PNG figures
  chromium                                          # headless: the report page render test
  libotf2-trace-dev otf2-tools python3-otf2         # rubato trace export --format otf2; its round-trip tests
  libdw-dev                                         # elfutils: trace export names tasks by function, file:line
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# libomp 14 and 16 conflict; never pull 14 in through a meta package.
echo "rubato setup: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >/dev/null
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
