#!/usr/bin/env bash
# `rubato run --export-traces otf2,perfetto` end to end: a real OpenMP program
# (the OMPT tests' fib) under the tool leaves both exports in every trial's
# directory and `rubato report` links them; a program that records no trace
# (the fake instrumented one, as a oneTBB program) gets a note, not a failure;
# a bad value is refused before any trial.
# Usage: run_export_traces_test.sh RUBATO TOOL FIB FAKE
set -uo pipefail
rubato=$1 tool=$2 fib=$3 fake=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for v in $(compgen -e | grep '^RUBATO_'); do unset "$v"; done

"$rubato" run --policies baseline,hermes --trials 2 --skip 0 --workers 2 --backend dry-run --tool "$tool" \
    --export-traces otf2,perfetto --out "$tmp/r" -- "$fib" 12 2 >"$tmp/out" 2>"$tmp/err" \
    || { cat "$tmp/out" "$tmp/err"; fail "run failed"; }
for d in "$tmp"/r/w2/*/trial-*; do
  [ -s "$d/tasks.r0.trace" ] || fail "$d: no trace recorded"
  [ -s "$d/tasks.r0.trace.json" ] || fail "$d: no Perfetto export"
  [ -s "$d/tasks.r0.trace.otf2/traces.otf2" ] || fail "$d: no OTF2 archive"
  grep -q '"name":"fib(int)' "$d/tasks.r0.trace.json" || fail "$d: the task function is not named"
done
[ "$(ls -d "$tmp"/r/w2/*/trial-* | wc -l)" = 4 ] || fail "expected 4 trial directories"
# The exports are not reports: compare still reads 4 of them.
"$rubato" compare --skip 0 --json "$tmp/r" >"$tmp/json" || fail "compare after the exports"
grep -q '"used": 2' "$tmp/json" || fail "compare: 2 trials per policy expected"

"$rubato" report "$tmp/r" -o "$tmp/r/report" --no-png >/dev/null 2>"$tmp/rerr" || { cat "$tmp/rerr"; fail "report"; }
page="$tmp/r/report/index.html"
grep -q "ui.perfetto.dev" "$page" || fail "the page does not say how to open the traces"
[ "$(grep -c '^<li>w2/[a-z]*/trial-0[01]: <a href' "$page")" = 4 ] || fail "expected one line per trial"
# Every link resolves from the page's directory.
links=$(grep -o 'href="\.\./w2/[^"]*"' "$page" | sed 's/^href="//; s/"$//')
[ "$(echo "$links" | grep -c 'traces\.otf2$')" = 4 ] || fail "4 OTF2 links expected"
[ "$(echo "$links" | grep -c 'trace\.json$')" = 4 ] || fail "4 Perfetto links expected"
for l in $links; do [ -f "$tmp/r/report/$l" ] || fail "link $l does not resolve"; done

# No trace recorded (a program without the OpenMP tool): one note, the trials not failed.
"$rubato" run --policies baseline --trials 2 --skip 0 --workers 1 --backend dry-run --tool "$tool" \
    --export-traces perfetto --out "$tmp/t" -- "$fake" >"$tmp/out" 2>"$tmp/err" \
    || { cat "$tmp/out" "$tmp/err"; fail "a run without traces failed"; }
[ "$(grep -c 'recorded no task trace' "$tmp/err")" = 1 ] || { cat "$tmp/err"; fail "the note is not said once"; }
grep -q 'recorded no task trace' "$tmp/t/w1/baseline/trial-01/report.r0.json" || fail "the note is not in the report"

# A bad value: exit status 2 naming the option, the value and what is accepted; nothing run.
"$rubato" run --export-traces otf2,vampir --tool "$tool" --out "$tmp/never" -- "$fib" 12 2 2>"$tmp/err"
[ $? = 2 ] || fail "a bad --export-traces must be a usage error"
grep -q "^rubato run: --export-traces 'otf2,vampir': 'vampir' is not an export format; accepted: " "$tmp/err" \
    || { cat "$tmp/err"; fail "the refusal does not name the value and what is accepted"; }
[ -e "$tmp/never" ] && fail "a refused run created its results directory"
echo ok
