#!/usr/bin/env bash
# rubato restore after kill -9: a fake sysfs tree, a child that set policy0 to
# userspace + 1.4 GHz, SIGKILL, then `rubato restore`; the tree must match a
# copy taken before, byte for byte.
set -euo pipefail
rubato=$1 child=$2 profiles=$3
work=$(mktemp -d /tmp/rubato-restore-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/sys
for p in 0 1; do
  d=$root/devices/system/cpu/cpufreq/policy$p
  mkdir -p "$d"
  echo "$p" > "$d/related_cpus"
  echo "2400000 1900000 1400000 " > "$d/scaling_available_frequencies"
  echo 1400000 > "$d/cpuinfo_min_freq"; echo 2400000 > "$d/cpuinfo_max_freq"
  echo 1900000 > "$d/scaling_min_freq"; echo 2400000 > "$d/scaling_max_freq"
  echo powersave > "$d/scaling_governor"
  echo "performance powersave userspace" > "$d/scaling_available_governors"
  echo "<unsupported>" > "$d/scaling_setspeed"
done
echo 0-1 > "$root/devices/system/cpu/online"
cp -a "$root" "$work/before"
mkdir -m 700 "$work/state"
export RUBATO_BACKEND=sysfs RUBATO_SYSFS_ROOT=$root RUBATO_STATE_DIR=$work/state RUBATO_POLICY=fixed:1.4GHz \
       RUBATO_REPORT= RUBATO_PROFILE_DIR=$profiles RUBATO_MAX_WORKERS=2
coproc CHILD { exec "$child" "$root/devices/system/cpu/cpufreq/policy0/scaling_setspeed"; }
read -r -t 30 line <&"${CHILD[0]}"
[[ $line == "ready 1400000" ]] || { echo "child not ready: '$line'"; exit 1; }
kill -9 "$CHILD_PID"; wait "$CHILD_PID" || true
if diff -r "$work/before" "$root" > /dev/null; then echo "tree unchanged before restore?"; exit 1; fi
"$rubato" restore
diff -r "$work/before" "$root"
[[ -z $(ls "$work/state") ]] || { echo "state file left behind"; exit 1; }
echo "restored byte-exact"
