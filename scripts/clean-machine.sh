#!/usr/bin/env bash
# Runs the README's two commands on a clean machine: a throw-away Debian 12
# root file system made with debootstrap (minbase: no compiler, no cmake, no
# LLVM, nothing this project installs), entered with chroot inside a private
# mount namespace, with a fresh clone of this checkout's HEAD and ../shared
# beside it. Whatever the tests or the main job need and scripts/setup.sh does
# not install fails here, as it would on a new machine; nothing installed on
# this host by hand can hide it.
#
#   scripts/clean-machine.sh                 scripts/test.sh, then scripts/experiment.sh
#   scripts/clean-machine.sh test            only the test command
#   scripts/clean-machine.sh experiment      only the main job
#   scripts/clean-machine.sh -- CMD ...      any command in the clone (e.g. -- scripts/setup.sh)
#
# Settings (environment):
#   RUBATO_CLEAN_ROOT    where the root file system goes (/var/tmp/rubato-clean-root);
#                        made anew on every run, removed at the end unless
#                        RUBATO_CLEAN_KEEP=1
#   RUBATO_CLEAN_MIRROR  Debian mirror (the one this host's apt uses, else deb.debian.org)
# Needs root, debootstrap (installed here if missing) and the Debian mirror;
# about 10 GB of disk. The test command alone takes ~30 minutes on 2 cores:
# every stage builds from scratch, with no compiler cache.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "clean-machine: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }

what=(test experiment)
if [ $# -gt 0 ]; then
  case $1 in
    test | experiment) what=("$1") ;;
    --) shift; what=(custom) ;;
    *) echo "usage: scripts/clean-machine.sh [test | experiment | -- CMD ...]" >&2; exit 2 ;;
  esac
fi

root=${RUBATO_CLEAN_ROOT:-/var/tmp/rubato-clean-root}
mirror=${RUBATO_CLEAN_MIRROR:-$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
  grep -oE 'https?://[^ ]+' | head -1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}
say() { echo "clean-machine: $*" >&2; }

command -v debootstrap >/dev/null || {
  say "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}

# A mount left by an interrupted run would make rm -rf reach into the host.
if [ -d "$root" ]; then
  if grep -q " $root/" /proc/mounts; then say "$root has mounts in it; unmount them first"; exit 2; fi
  rm -rf "$root"
fi
cleanup() { [ "${RUBATO_CLEAN_KEEP:-0}" = 1 ] || { grep -q " $root/" /proc/mounts || rm -rf "$root"; }; }
trap cleanup EXIT

say "debootstrap bookworm (minbase + git, ca-certificates) from $mirror into $root"
debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { say "debootstrap failed: $root.debootstrap.log"; exit 1; }
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian*}/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"

# The clone: exactly what is committed, as CI checks it out, with ../shared beside it.
mkdir -p "$root/work"
git clone -q "$PWD" "$root/work/rubato"
if [ -d ../shared ]; then cp -r ../shared "$root/work/shared"; fi  # as CI lays it; nothing in the tree reads it
say "clone of $(git rev-parse --short HEAD) in $root/work/rubato; packages before setup: $(chroot "$root" dpkg-query -W | wc -l)"

inner='cd /work/rubato && export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 && '
case ${what[0]} in
  custom) inner+=$(printf '%q ' "$@") ;;
  *)
    steps=()
    for w in "${what[@]}"; do
      case $w in
        test) steps+=('echo "== clean-machine: scripts/test.sh"; scripts/test.sh; t=$?; echo "== clean-machine: scripts/test.sh exit $t"') ;;
        experiment) steps+=('echo "== clean-machine: scripts/experiment.sh"; scripts/experiment.sh; e=$?; echo "== clean-machine: scripts/experiment.sh exit $e"') ;;
      esac
    done
    inner+="t=0; e=0; $(IFS=';'; echo "${steps[*]}"); exit \$((t || e))"
    ;;
esac

# A private mount namespace: the mounts go away with it, whatever happens. The
# commands start from an empty environment (env -i; the inner line sets HOME,
# PATH, LANG), as on a new machine: nothing of this shell leaks in (a
# RUBATO_CLEAN_ROOT left set made every program under rubato warn about an
# unknown RUBATO_ variable, and the tests that read rubato's stderr failed).
status=0
unshare --mount --propagation private bash -c '
  set -e
  root=$1; inner=$2
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o size=4g tmpfs "$root/dev/shm"
  mount -t tmpfs tmpfs "$root/run"
  mount -t tmpfs tmpfs "$root/tmp"
  chroot "$root" /usr/bin/env -i /bin/bash -c "$inner"
' clean-machine "$root" "$inner" || status=$?
say "done: exit status $status"
exit "$status"
