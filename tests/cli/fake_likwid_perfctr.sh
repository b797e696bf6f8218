#!/usr/bin/env bash
# Stands in for likwid-perfctr in `rubato run --likwid` tests: takes its
# options (-C CPUS -g GROUP -O -o FILE), writes the recorded-format sample for
# GROUP to FILE and runs the program. FAKE_LIKWID_REFUSE=1 makes it fail the
# way likwid does in a VM.
set -euo pipefail
data_dir=$(dirname "$0")/data
if [ "${FAKE_LIKWID_REFUSE:-0}" = 1 ]; then
  echo "Cannot get access to MSRs. Please check permissions to the MSRs" >&2
  exit 1
fi
group="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -C) shift 2 ;;
    -g) group=$2; shift 2 ;;
    -O) shift ;;
    -o) out=$2; shift 2 ;;
    *) break ;;
  esac
done
cp "$data_dir/likwid_perfctr_${group}_skylakeX_2threads.csv" "$out"
exec "$@"
