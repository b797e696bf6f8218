#!/usr/bin/env bash
# End-to-end tests of `rubato run --launcher` with Open MPI (Debian's
# openmpi-bin): 2 ranks on this host, each running OpenMP tasks under the tool.
# Every rank writes its own report, exact in its steals (the program records
# who created and who started each task, per rank), and `rubato compare`
# merges a trial's ranks as specified: time of the slowest, steals and tasks
# summed, energy once per node (modeled: the node's uncore once + each rank's
# cores; measured: the node's RAPL counters once, here a fake powercap tree).
# Usage: mpi_launcher_e2e.sh CASE RUBATO OMPT_TOOL MPI_TASKS MPI_EXAMPLE
set -uo pipefail
case=$1 rubato=$2 tool=$3 prog=$4 example=$5
tmp=$(mktemp -d)
bg=
trap '[ -n "$bg" ] && kill "$bg" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun not found (scripts/setup.sh installs openmpi-bin)"; exit 77; }
# mpirun refuses root without these; 2 ranks x 2 threads oversubscribe 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# No network: Open MPI's TCP component then only looks at loopback.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
launcher="mpirun -np 2 --oversubscribe --bind-to none"

# run OUT WORKERS [rubato run options...]: 2 trials of baseline and hermes.
run() {
  local out=$1 workers=$2
  shift 2
  "$rubato" run --policies baseline,hermes --trials 2 --skip 0 --workers "$workers" --backend emulated \
      --profile generic --tool "$tool" --out "$out" --launcher "$launcher" "$@" -- "$prog" 150 4 20000 \
      >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "rubato run failed"; }
  cat "$tmp/out"
}

# Every trial of OUT: both ranks' reports, listed in the index, each exact in
# its steals against what that rank's program recorded.
check_ranks() {
  local out=$1 kind=${2:-openmpi} n=0
  [ "$(jq -r .launcher "$out/rubato-index.json")" = "$launcher" ] || fail "index does not record the launcher"
  [ "$(jq -r .launcher_kind "$out/rubato-index.json")" = "$kind" ] || fail "launcher kind not $kind"
  for dir in $(jq -r '.runs[].dir' "$out/rubato-index.json"); do
    local listed
    listed=$(jq -r --arg d "$dir" '.runs[] | select(.dir == $d) | .reports | length' "$out/rubato-index.json")
    [ "$listed" = 2 ] || fail "$dir: index lists $listed reports, expected 2"
    for r in 0 1; do
      local rep
      rep=$(ls "$out/$dir"/report.r$r.*.json 2>/dev/null | head -1)
      [ -n "$rep" ] || fail "$dir: no report from rank $r"
      [ "$(jq .rank "$rep")" = $r ] || fail "$rep: rank $(jq .rank "$rep"), expected $r"
      [ -s "$out/$dir/gt.r$r.txt" ] || fail "$dir: rank $r recorded no ground truth"
      local truth steals stolen tasks
      truth=$(awk '$1 == "task" && $2 != $4 { n++ } END { print n + 0 }' "$out/$dir/gt.r$r.txt")
      tasks=$(awk '$1 == "task" { n++ } END { print n + 0 }' "$out/$dir/gt.r$r.txt")
      steals=$(jq '[.workers[].steals] | add' "$rep")
      stolen=$(jq '[.workers[].stolen_from] | add' "$rep")
      [ "$steals" = "$truth" ] || fail "$rep: $steals steals, the program saw $truth"
      [ "$stolen" = "$truth" ] || fail "$rep: $stolen stolen_from, the program saw $truth"
      [ "$tasks" = 600 ] || fail "$dir rank $r: $tasks tasks recorded, 600 created"
      n=$((n + 1))
    done
  done
  echo "$n rank reports, steals exact"
}

# The merged figures of every trial, recomputed from its reports.
# ENERGY_RULE: jq over the array of a trial's reports giving the node's energy.
check_merge() {
  local out=$1 rule=$2
  "$rubato" compare --skip 0 --json "$out" >"$tmp/cmp.json" || fail "compare failed"
  [ "$(jq -c '[.groups[] | .nodes, .ranks]' "$tmp/cmp.json")" = '[[1],[2]]' ] || fail "group nodes/ranks: $(jq -c '[.groups[] | .nodes, .ranks]' "$tmp/cmp.json")"
  local trials
  trials=$(jq -c '.groups[].policies[].trials[]' "$tmp/cmp.json")
  [ "$(echo "$trials" | wc -l)" = 4 ] || fail "expected 4 merged trials"
  while read -r t; do
    [ "$(jq .ranks <<<"$t")" = 2 ] && [ "$(jq .hosts <<<"$t")" = 1 ] || fail "trial not 2 ranks on 1 node: $t"
    jq -s '.' $(jq -r '.files[]' <<<"$t") >"$tmp/reps.json"
    local want got
    want=$(jq '[.[].wall_s] | max' "$tmp/reps.json"); got=$(jq .time_s <<<"$t")
    jq -e -n "($got - $want) | fabs < 1e-12" >/dev/null || fail "time $got, slowest rank $want"
    want=$(jq '[.[].workers[].steals] | add' "$tmp/reps.json"); got=$(jq .steals <<<"$t")
    [ "$got" = "$want" ] || fail "steals $got, summed ranks $want"
    want=$(jq '[.[].workers[].tasks_completed] | add' "$tmp/reps.json"); got=$(jq .tasks <<<"$t")
    [ "$got" = "$want" ] || fail "tasks $got, summed ranks $want"
    want=$(jq "$rule" "$tmp/reps.json"); got=$(jq .energy_j <<<"$t")
    local sum
    sum=$(jq '[.[].energy.joules] | add' "$tmp/reps.json")
    jq -e -n "($got - $want) | fabs <= 1e-9 * $want" >/dev/null || fail "energy $got, once per node $want"
    jq -e -n "$got < $sum" >/dev/null || fail "energy $got counts the node twice (sum of ranks $sum)"
    echo "trial: energy $got J once per node (the ranks' sum: $sum J)"
  done <<<"$trials"
  "$rubato" compare --skip 0 "$out" >"$tmp/cmp.txt" || fail "compare (text) failed"
  grep -q -- "— 1 node, 2 ranks" "$tmp/cmp.txt" || { cat "$tmp/cmp.txt"; fail "compare does not say 1 node, 2 ranks"; }
}

case "$case" in
modeled)
  # 2 ranks x 2 threads, energy from the power model: the uncore once per node.
  run "$tmp/r" 2 --timeout 30
  check_ranks "$tmp/r"
  grep -q "— 1 node, 2 ranks" "$tmp/out" || fail "rubato run's table does not say 1 node, 2 ranks"
  for f in "$tmp"/r/w2/*/trial-*/report.r*.json; do
    jq -e '.energy.source == "modeled:generic" and (.external.energy_modeled_uncore_j > 0)' "$f" >/dev/null \
      || fail "$f: modeled energy without its uncore part"
  done
  check_merge "$tmp/r" '(map(.external.energy_modeled_uncore_j) | max) + (map(.energy.joules - .external.energy_modeled_uncore_j) | add)'
  ;;
one_thread)
  # 2 ranks x 1 thread: no thief, no steal; still one report per rank.
  run "$tmp/r" 1
  check_ranks "$tmp/r"
  [ "$(jq '[.workers[].steals] | add' "$tmp"/r/w1/hermes/trial-00/report.r0.*.json)" = 0 ] || fail "steals with one thread"
  check_merge "$tmp/r" '(map(.external.energy_modeled_uncore_j) | max) + (map(.energy.joules - .external.energy_modeled_uncore_j) | add)'
  ;;
rapl)
  # A fake powercap tree whose package counter rises while the ranks run: both
  # ranks read the same node's counter, which the merge must count once.
  root="$tmp/sys"
  zone="$root/class/powercap/intel-rapl:0"
  mkdir -p "$zone" "$root/devices/system/cpu"
  echo "0-1" >"$root/devices/system/cpu/online"
  echo package-0 >"$zone/name"
  echo 262143328850 >"$zone/max_energy_range_uj"
  echo 1000000 >"$zone/energy_uj"
  (
    uj=1000000
    while :; do
      uj=$((uj + 2000))  # 2 mJ a millisecond or so: about 2 W
      echo $uj >"$zone/energy_uj.new" && mv "$zone/energy_uj.new" "$zone/energy_uj"
      sleep 0.001
    done
  ) &
  bg=$!
  export RUBATO_SYSFS_ROOT=$root
  run "$tmp/r" 2 --timeout 30
  check_ranks "$tmp/r"
  for f in "$tmp"/r/w2/*/trial-*/report.r*.json; do
    jq -e '.energy.source == "measured:rapl" and .energy.joules > 0' "$f" >/dev/null \
      || fail "$f: $(jq -c .energy "$f") (expected a measured figure from the fake counter)"
  done
  check_merge "$tmp/r" 'group_by(.host) | map(map(.energy.joules) | max) | add'
  ;;
exit_status)
  # The trial's exit status is the launcher's: rank 1 exits 3, mpirun passes it on.
  "$rubato" run --policies baseline --trials 1 --skip 0 --workers 1 --backend emulated --tool "$tool" \
      --out "$tmp/r" --launcher "$launcher" -- "$prog" 20 1 1000 1 >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/err"
  [ $rc = 1 ] || fail "rubato run exited $rc, expected 1 (a failed trial)"
  status=$(jq '.runs[0].exit_status' "$tmp/r/rubato-index.json")
  [ "$status" != 0 ] || fail "the index records exit status 0"
  grep -q "exit status $status" "$tmp/err" || fail "the failure does not give the launcher's status $status"
  ;;
refuse)
  # Trials on different numbers of nodes are not compared: one clear line, status 1.
  run "$tmp/r" 1
  f=$(ls "$tmp"/r/w1/hermes/trial-01/report.r1.*.json)
  jq '.host = "other-node"' "$f" >"$f.new" && mv "$f.new" "$f"
  "$rubato" compare --skip 0 "$tmp/r" >"$tmp/cmp.txt" 2>"$tmp/cmp.err"
  rc=$?
  cat "$tmp/cmp.err"
  [ $rc = 1 ] || fail "compare exited $rc, expected 1"
  [ "$(wc -l <"$tmp/cmp.err")" = 1 ] || fail "expected one line"
  grep -q "different numbers of nodes (baseline 1, hermes 1/2)" "$tmp/cmp.err" || fail "the line does not say which"
  [ -s "$tmp/cmp.txt" ] && fail "a refused comparison printed a table"
  ;;
example)
  # The hybrid example (examples/mpi_openmp) under each policy.
  "$rubato" run --policies baseline,workpath,workload,hermes --trials 1 --skip 0 --workers 2 --backend emulated \
      --tool "$tool" --out "$tmp/r" --launcher "$launcher" -- "$example" 20000 20 >"$tmp/out" 2>"$tmp/err" \
      || { cat "$tmp/out" "$tmp/err"; fail "rubato run failed"; }
  cat "$tmp/out"
  [ "$(ls "$tmp"/r/w2/*/trial-00/report.r*.json | wc -l)" = 8 ] || fail "expected 2 reports under each of 4 policies"
  grep -q "— 1 node, 2 ranks" "$tmp/out" || fail "no node and rank count"
  "$rubato" report "$tmp/r" -o "$tmp/report" >/dev/null 2>"$tmp/rep.err" || { cat "$tmp/rep.err"; fail "rubato report failed"; }
  grep -rq "1 node, 2 ranks" "$tmp/report" || fail "rubato report does not show the node and rank count"
  ;;
slurm)
  # A real Slurm on this host (Debian's slurmd, slurmctld, munge): a private
  # munged, controller and node daemon, then srun as the launcher.
  [ "$(id -u)" = 0 ] || { echo "slurm case needs root (slurmd)"; exit 77; }
  for p in slurmctld slurmd srun munged; do command -v $p >/dev/null || { echo "$p not found"; exit 77; }; done
  host=$(hostname -s)
  mkdir -p "$tmp/slurm/state" "$tmp/slurm/spool"
  munged -F --force --socket "$tmp/munge.sock" --key-file /etc/munge/munge.key --pid-file "$tmp/munged.pid" \
      --log-file "$tmp/munged.log" --seed-file "$tmp/munge.seed" >/dev/null 2>&1 &
  daemons=($!)
  trap 'kill "${daemons[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
  # Two ports of this run's own: a pair no other run of this script picks at
  # the same time (pids differ; two runs started together get near pids, so
  # each takes an even pair), and nothing listens there now.
  listening() { ss -Htln "( sport = :$1 )" 2>/dev/null | grep -q .; }
  port=
  for try in $(seq 0 99); do
    p=$((20000 + 2 * (($$ + 997 * try) % 10000)))
    listening "$p" || listening $((p + 1)) || { port=$p; break; }
  done
  [ -n "$port" ] || { echo "no free pair of ports for Slurm here"; exit 77; }
  cat >"$tmp/slurm.conf" <<CONF
ClusterName=rubatoe2e
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/slurm/state
SlurmdSpoolDir=$tmp/slurm/spool
SlurmctldPidFile=$tmp/slurm/ctld.pid
SlurmdPidFile=$tmp/slurm/d.pid
SlurmctldLogFile=$tmp/slurm/ctld.log
SlurmdLogFile=$tmp/slurm/d.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF
  export SLURM_CONF=$tmp/slurm.conf
  # munged listens once its socket exists (bounded wait; a munged that never
  # comes up is a Slurm that does not work here).
  deadline=$((SECONDS + 20))
  while [ ! -S "$tmp/munge.sock" ] && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
  [ -S "$tmp/munge.sock" ] || { tail -5 "$tmp/munged.log" 2>/dev/null; echo "munged did not start here"; exit 77; }
  slurmctld -D -f "$SLURM_CONF" >"$tmp/ctld.out" 2>&1 &
  daemons+=($!)
  slurmd -D -f "$SLURM_CONF" >"$tmp/d.out" 2>&1 &
  daemons+=($!)
  up=
  deadline=$((SECONDS + 40))  # sinfo may wait its MessageTimeout for a controller that never answers
  while [ $SECONDS -lt $deadline ]; do
    timeout 3 sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 0.2
  done
  [ -n "$up" ] || { tail -5 "$tmp/slurm/ctld.log" "$tmp/slurm/d.log" "$tmp/munged.log" 2>/dev/null; echo "Slurm did not come up here"; exit 77; }
  # A node that shows idle may still not run jobs: one bounded probe first.
  # (In a debootstrap chroot the case once ran into the test's 180 s limit;
  # every step is bounded now, and a Slurm that does not work here skips.)
  timeout 30 srun -N 1 -n 1 true >"$tmp/probe.out" 2>&1 ||
    { tail -5 "$tmp/probe.out" "$tmp/slurm/ctld.log" "$tmp/slurm/d.log" 2>/dev/null; echo "Slurm does not run jobs here"; exit 77; }
  launcher="srun -N 1 --ntasks-per-node=2 --overcommit --mpi=pmix"
  run "$tmp/r" 2 --timeout 30
  check_ranks "$tmp/r" slurm
  check_merge "$tmp/r" '(map(.external.energy_modeled_uncore_j) | max) + (map(.energy.joules - .external.energy_modeled_uncore_j) | add)'
  ;;
*) fail "unknown case $case" ;;
esac
echo "ok: $case"
