#!/usr/bin/env bash
# The README's main command: installs what is missing, builds what the
# experiment needs, runs the five PBBS kernels of [HERMES] §4.1 (OpenMP tasks:
# knn ray sort compare hull) under baseline, hermes ([HERMES]), slack and eco
# (rubato's own: slow the workers that wait; eco = hermes + the cost guard + slack)
# with the rubato tool attached, on the best backend this machine allows, and
# prints the comparison table (normalised to baseline: energy saving, time
# loss, EDP, waiting time and how much of it was slowed) and where the report is.
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
unset RUBATO_EXPERIMENT_TRIALS RUBATO_EXPERIMENT_SKIP RUBATO_EXPERIMENT_WORKERS RUBATO_EXPERIMENT_SCALE \
  RUBATO_EXPERIMENT_OUT RUBATO_EXPERIMENT_POLICIES RUBATO_BUILD_DIR
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
echo
echo "report: $out/report/index.html (figures as SVG and PNG next to it; raw reports under $out/<kernel>/)"
[ "$failed" = 0 ] || { say "some runs failed: they are listed above, kept under $out and not averaged"; exit 1; }
