#!/usr/bin/env bash
# rubato restore after kill -9, for the uncore: a fake tree with two packages
# of two dies whose limits in force (1.2-2.0 GHz) are narrower than the
# hardware's (0.8-2.4 GHz), a child that moved every domain up and down
# several times, SIGKILL, then `rubato restore`: the tree must match a copy
# taken before, byte for byte (the original limits, not the last ones set).
set -euo pipefail
rubato=$1 child=$2
work=$(mktemp -d /tmp/rubato-uncore-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/sys
for p in 00 01; do
  for die in 00 01; do
    d=$root/devices/system/cpu/intel_uncore_frequency/package_${p}_die_${die}
    mkdir -p "$d"
    echo 800000 > "$d/initial_min_freq_khz"; echo 2400000 > "$d/initial_max_freq_khz"
    echo 1200000 > "$d/min_freq_khz"; echo 2000000 > "$d/max_freq_khz"
    echo 1600000 > "$d/current_freq_khz"
  done
done
echo 0-1 > "$root/devices/system/cpu/online"
cp -a "$root" "$work/before"
mkdir -m 700 "$work/state"
coproc CHILD { exec "$child" "$root" "$work/state" wait 2400000 800000 1700000 900000; }
read -r -t 30 line <&"${CHILD[0]}"
[[ $line == "ready 900000" ]] || { echo "child not ready: '$line'"; exit 1; }
kill -9 "$CHILD_PID"; wait "$CHILD_PID" || true
if diff -r "$work/before" "$root" > /dev/null; then echo "tree unchanged before restore?"; exit 1; fi
[[ $(ls "$work/state") == uncore-*.state ]] || { echo "no uncore state file: $(ls "$work/state")"; exit 1; }
RUBATO_SYSFS_ROOT=$root RUBATO_STATE_DIR=$work/state "$rubato" restore
diff -r "$work/before" "$root"
[[ -z $(ls "$work/state") ]] || { echo "state file left behind"; exit 1; }
echo "restored byte-exact"
