#!/usr/bin/env bash
# The README's main command: installs what is missing, builds what the
# experiment needs, then three tables.
#
# First: eco on a node it has not seen, through the user's path only
# (benchmarks/closed_loop/fake_node.py --quick, ~4 min). The node is a fake
# machine (tests/reliability/programs/fake_machine.cpp: cpufreq, an
# intel_uncore_frequency domain, a RAPL zone whose energy follows a law
# invented there and in no profile); `rubato calibrate` measures it (its uncore
# power ladder, the knee of a program whose tasks follow the fake clocks by a
# law that is not rubato's form), then `rubato run --policies baseline,eco` on
# that profile, no counters, no shares given; beside eco, the oracle's best
# static (core, uncore) pair found by running every one, the ideal per phase,
# and the issue's hand pin (RUBATO_UNCORE=2.0GHz). Energy is the fake RAPL
# zone's (measured, of a fake law); time is wall time.
#
# Second: the five PBBS kernels of [HERMES] §4.1 (OpenMP tasks:
# knn ray sort compare hull) under baseline, hermes ([HERMES]), slack and eco
# (rubato's own: slack slows the workers that wait; eco =
# hermes+guarded+slack+min-energy, docs/slack.md and docs/min-energy.md)
# with the rubato tool attached, on the best backend this machine allows, and
# prints the comparison table (normalised to baseline: energy saving, time
# loss, EDP, waiting time and how much of it was slowed) and where the report is.
#
# Third: the uncore lever. rubato's baseline, slack and eco on
# [Cuttlefish]'s machine (profile haswell-e5-2650v3, fitted to that paper's
# published measurements: benchmarks/cuttlefish/RESULTS.md), simulated at 20
# workers on the six programs' own task traces (recorded from their OpenMP
# versions, benchmarks/cuttlefish/traces) with their fitted sensitivities,
# beside Cuttlefish's measured runs (benchmarks/cuttlefish/replay.py, ~10 s).
# It is there because the uncore lever cannot show in the PBBS table: a VM
# has no uncore to move, and opteron-6378 has no uncore ladder.
#
# Why the PBBS table keeps opteron-6378 ([HERMES] System A, the machine the
# paper ran these kernels on) rather than haswell-e5-2650v3: the kernels'
# uncore sensitivity is unknown (no counters in a VM, no sweep of them on that
# machine), so min-energy would take b_u = 0 from the profile and put the
# uncore at its lowest level at no modelled cost (`rubato model frequency
# --profile haswell-e5-2650v3 --workers 2`: 1.2 GHz, energy 0.586 of the
# fastest pair, time 1.000): a saving that rests on an assumed sensitivity,
# not on a measurement. RUBATO_PROFILE=haswell-e5-2650v3 runs it anyway.
#
# Settings (environment; defaults sized for ~5 minutes of runs on 2 cores):
#   RUBATO_EXPERIMENT_TRIALS  trials per kernel and policy (10; the paper: 20)
#   RUBATO_EXPERIMENT_SKIP    first trials dropped (2, as the paper)
#   RUBATO_EXPERIMENT_WORKERS worker counts, comma list (2)
#   RUBATO_EXPERIMENT_SCALE   multiplies every input size (1)
#   RUBATO_EXPERIMENT_OUT     results directory (results/<date-time>)
#   RUBATO_EXPERIMENT_POLICIES policies, comma list (baseline,hermes,slack,eco; the
#                             paper's parts: add workpath,workload)
#   RUBATO_PROFILE            machine profile (opteron-6378: [HERMES] System A)
#   RUBATO_BACKEND            auto (default): sysfs, else likwid; where neither works the
#                             script asks for the emulator (--backend emulated) and says so
#   RUBATO_BUILD_DIR          build directory (build/default, the default preset's)
#   RUBATO_EXPERIMENT_FAKE_NODE   1 (default): print the first table; 0: leave it out
#   RUBATO_EXPERIMENT_CUTTLEFISH  1 (default): print the third table; 0: leave it out
set -euo pipefail
cd "$(dirname "$0")/.."

trials=${RUBATO_EXPERIMENT_TRIALS:-10}
skip=${RUBATO_EXPERIMENT_SKIP:-2}
workers=${RUBATO_EXPERIMENT_WORKERS:-2}
scale=${RUBATO_EXPERIMENT_SCALE:-1}
out=${RUBATO_EXPERIMENT_OUT:-results/$(date +%Y%m%d-%H%M%S)}
profile=${RUBATO_PROFILE:-opteron-6378}
backend=${RUBATO_BACKEND:-auto}
build=${RUBATO_BUILD_DIR:-build/default}
# The script's own settings are not rubato's (RUBATO_PROFILE / RUBATO_BACKEND
# are, and stay): left in the environment, every run would warn about an
# unknown RUBATO_ variable.
policies=${RUBATO_EXPERIMENT_POLICIES:-baseline,hermes,slack,eco}
cuttlefish=${RUBATO_EXPERIMENT_CUTTLEFISH:-1}
case "$cuttlefish" in
  0|1) ;;
  *) echo "rubato experiment: RUBATO_EXPERIMENT_CUTTLEFISH=$cuttlefish: accepted 1 (print the Cuttlefish table) or 0" >&2; exit 2 ;;
esac
fake_node=${RUBATO_EXPERIMENT_FAKE_NODE:-1}
case "$fake_node" in
  0|1) ;;
  *) echo "rubato experiment: RUBATO_EXPERIMENT_FAKE_NODE=$fake_node: accepted 1 (print the fake node's table) or 0" >&2; exit 2 ;;
esac
unset RUBATO_EXPERIMENT_TRIALS RUBATO_EXPERIMENT_SKIP RUBATO_EXPERIMENT_WORKERS RUBATO_EXPERIMENT_SCALE \
  RUBATO_EXPERIMENT_OUT RUBATO_EXPERIMENT_POLICIES RUBATO_BUILD_DIR RUBATO_EXPERIMENT_CUTTLEFISH \
  RUBATO_EXPERIMENT_FAKE_NODE
npolicies=$(echo "$policies" | tr ',' '\n' | wc -l)

# Input sizes: 0.1-0.7 s per run at 2 workers here (the programs'
# defaults take 5-40 s each). kernel=arguments, in the paper's order.
kernels=(
  "knn=--n $((100000 * scale))"
  "ray=--n $((20000 * scale))"
  "sort=--n $((4000000 * scale))"
  "compare=--n $((1500000 * scale))"
  "hull=--n $((3000000 * scale))"
)

say() { echo "rubato experiment: $*" >&2; }

scripts/setup.sh
say "building rubato, librubato_ompt.so and the kernels in $build"
cmake --preset default -B "$build" >/dev/null
targets=(rubato rubato_ompt)
for k in "${kernels[@]}"; do targets+=("${k%%=*}_omp"); done
[ "$fake_node" = 0 ] || targets+=(reliability_fake_machine reliability_clock_following)
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}" >/dev/null
rubato=$build/cli/rubato
tool=$build/frontends/ompt/librubato_ompt.so

chosen=$("$rubato" info 2>/dev/null | sed -n 's/^  -> //p' | head -1)
if [ "$backend" = auto ]; then
  # auto never emulates (it records decisions only where no real back-end
  # works); an experiment without DVFS asks for the emulator explicitly.
  case "$chosen" in
    "backend dry-run"*) backend=emulated; chosen="backend emulated (asked for by this script: no real frequency control here; ${chosen#backend dry-run (auto; })" ;;
  esac
else
  chosen="backend $backend (RUBATO_BACKEND)"
fi
say "$chosen"
say "profile $profile$([ -z "${RUBATO_PROFILE:-}" ] && echo ' (default: [HERMES] System A, 2x Opteron 6378; RUBATO_PROFILE to change)')"
case "$chosen" in
  *emulated*) say "no DVFS here: slowed workers are emulated (their tasks really take longer) and energy is modeled from the profile, not measured" ;;
esac
runs=$(( ${#kernels[@]} * npolicies * trials * $(echo "$workers" | tr ',' '\n' | wc -l) ))
say "${#kernels[@]} kernels x $npolicies policies ($policies) x $trials trials (first $skip dropped) on $workers workers = $runs runs of 0.1-1 s each here; results in $out"

mkdir -p "$out"
failed=0
cuttlefish_failed=0
fake_node_failed=0
if [ "$fake_node" = 1 ]; then
  echo "== eco on a node it has not seen: MEASURED on a fake node (a fake RAPL zone whose energy follows a law invented"
  echo "   in benchmarks/closed_loop/fake_node.py, in no profile; time: wall time of a program whose tasks follow the fake"
  echo "   clocks by an uncore law that is not rubato's form). The user's path only: rubato calibrate (its uncore ladder"
  echo "   and knee below), then rubato run --policies baseline,eco on that profile, no counters, no shares given."
  echo "   Beside eco: the oracle's best static (core, uncore) pair (every pair run), the ideal per phase, the hand pin"
  echo "   RUBATO_UNCORE=2.0GHz. Ratios to baseline, mean ± 95 % CI over 3 trials. =="
  echo
  # The fake node's state directory and tree are its own (a temporary directory under /dev/shm).
  rc=0
  # One oracle run a pair keeps the main job's length (the benchmark's default, 2, halves the oracle's noise).
  python3 benchmarks/closed_loop/fake_node.py --build "$build" --trials 3 --seconds 0.5 --quick --oracle-runs 1 \
    >"$out/fake-node.md" || rc=$?
  cat "$out/fake-node.md"
  case $rc in
    0) ;;
    3) say "the fake node's table misses a goal (its last line): a result, reported as it is" ;;
    *) say "the fake node's table failed (benchmarks/closed_loop/fake_node.py, exit $rc); the tables below stand"
       fake_node_failed=1 ;;
  esac
  echo
fi
for k in "${kernels[@]}"; do
  name=${k%%=*}
  read -r -a args <<<"${k#*=}"
  say "$name: ${name}_omp ${args[*]}"
  backend_args=()
  [ "$backend" = auto ] || backend_args=(--backend "$backend")
  "$rubato" run --policies "$policies" --trials "$trials" --skip "$skip" --workers "$workers" \
      --profile "$profile" "${backend_args[@]}" --tool "$tool" --out "$out/$name" \
      -- "$build/benchmarks/kernels/${name}_omp" "${args[@]}" >"$out/$name.table.txt" || failed=1
done

echo
"$rubato" compare --skip "$skip" "$out"
"$rubato" report --skip "$skip" "$out" -o "$out/report" >/dev/null

if [ "$cuttlefish" = 1 ]; then
  echo
  echo "== The uncore lever, on [Cuttlefish]'s machine: MODELLED on haswell-e5-2650v3 (fitted to [Cuttlefish]'s"
  echo "   published measurements, benchmarks/cuttlefish/RESULTS.md); 'measured' rows are RAPL package energy and time"
  echo "   from [Cuttlefish]'s artifact (hipec/cuttlefish 16e3781, ten runs each); rubato's rows are simulated at"
  echo "   20 workers on the programs' own recorded task traces (benchmarks/cuttlefish/traces), scaled so that baseline"
  echo "   takes the measured 2.3/3.0 GHz time, with each program's fitted sensitivities."
  echo "   Why here: this VM has no uncore to move, and the PBBS table's default profile, opteron-6378, has no uncore"
  echo "   ladder, so eco's uncore choice (min-energy) shows only in this table. Analysis: benchmarks/ANALYSIS.md §7. =="
  echo
  if python3 benchmarks/cuttlefish/replay.py --rubato "$rubato" --out "$out/cuttlefish" >"$out/cuttlefish.md"; then
    cat "$out/cuttlefish.md"
  else
    say "the Cuttlefish comparison failed (benchmarks/cuttlefish/replay.py, its message above); the tables above stand"
    cuttlefish_failed=1
  fi
fi
echo
echo "report: $out/report/index.html (figures as SVG and PNG next to it; raw reports under $out/<kernel>/)"
[ "$cuttlefish" = 0 ] || echo "Cuttlefish comparison: $out/cuttlefish.md (simulated reports under $out/cuttlefish/)"
[ "$fake_node" = 0 ] || echo "fake node: $out/fake-node.md"
[ "$failed" = 0 ] || { say "some runs failed: they are listed above, kept under $out and not averaged"; exit 1; }
[ "$cuttlefish_failed" = 0 ] || exit 1
[ "$fake_node_failed" = 0 ] || exit 1
