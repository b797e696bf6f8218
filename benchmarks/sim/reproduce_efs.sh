#!/usr/bin/env bash
# [EFS] on the simulator: Fig. 4 (four identical threads: throughput
# vs solo bus utilisation 0.1..0.9, the analytic curve of Eqs. 10-12 beside the
# simulated run of four such tasks) and Table 1 (four max-bandwidth instances
# on the i5-2500 profile: serial, all cores, efs), with the paper's numbers.
#   benchmarks/sim/reproduce_efs.sh [BUILD_DIR (build/default)] [OUT_DIR (BUILD_DIR/sim-efs)]
# Writes OUT_DIR/fig4/*.json, OUT_DIR/table1/*.json, OUT_DIR/commands.txt and
# OUT_DIR/tables.md (efs_tables.py). A few seconds of host time.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
out=${2:-$build/sim-efs}
rubato=$build/cli/rubato
[ -x "$rubato" ] || { echo "reproduce_efs: $rubato not built" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/fig4" "$out/table1"

run() {  # command...
  echo "$*" >>"$out/commands.txt"
  "$@"
}

# Fig. 4: analytic (rubato model efs: core's Eq. 10 solution) and simulated
# (four 1 s tasks of solo utilisation b on four workers; throughput = 4 s / makespan).
for b in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9; do
  run "$rubato" model efs --identical 4 --solo "$b" --profile i5-2500 --json >"$out/fig4/model-$b.json"
  run "$rubato" simulate --profile i5-2500 --workers 4 --dag "mem:4:solo=$b:work=1s" --policy baseline \
    --out "$out/fig4/sim-$b.json" --quiet
done

# Table 1: four instances of a max-bandwidth synthetic (solo utilisation 1,
# clamped by the model to 0.999), 5.46 s each alone: the paper's serial time
# (21.84 s) / 4.
instances="mem:4:work=5.46s"
run "$rubato" simulate --profile i5-2500 --workers 1 --dag "$instances" --policy baseline --out "$out/table1/serial.json" --quiet
run "$rubato" simulate --profile i5-2500 --workers 4 --dag "$instances" --policy baseline --out "$out/table1/all-cores.json" --quiet
run "$rubato" simulate --profile i5-2500 --workers 4 --dag "$instances" --policy efs --out "$out/table1/efs.json" --quiet
# The same work as 21840 tasks of 1 ms, workers parked only between tasks (the
# OpenMP front-end's actuator) instead of preempted (the paper's OS scheduler).
tasks="loop:21840:grain=1:iter=1ms:solo=1"
run "$rubato" simulate --profile i5-2500 --workers 4 --dag "$tasks" --policy baseline --out "$out/table1/tasks-all-cores.json" --quiet
run "$rubato" simulate --profile i5-2500 --workers 4 --dag "$tasks" --policy efs --throttle task \
  --out "$out/table1/tasks-efs-task.json" --quiet

python3 benchmarks/sim/efs_tables.py "$out" >"$out/tables.md"
cat "$out/tables.md"
