#!/usr/bin/env bash
# `rubato report` end to end: results from `rubato run` (fake instrumented
# program), then the SVG / PNG / HTML output, and the page rendered in
# headless Chromium: the screenshot must show more than a blank page and the
# console must stay silent. A page with a deliberate script error is rendered
# first to prove the console check catches errors.
# Usage: report_render_test.sh RUBATO FAKE_PROGRAM
set -uo pipefail
rubato=$1 fake=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
touch "$tmp/tool.so"

"$rubato" run --policies baseline,workpath,workload,hermes --trials 3 --skip 0 --workers 1,2 --out "$tmp/r" \
    --tool "$tmp/tool.so" -- "$fake" --sleep-ms 3 >/dev/null 2>"$tmp/run_err" || { cat "$tmp/run_err"; fail "rubato run"; }
"$rubato" report "$tmp/r" -o "$tmp/rep" --skip 0 >"$tmp/files" 2>"$tmp/err" || { cat "$tmp/err"; fail "rubato report"; }
cat "$tmp/files" "$tmp/err"
for f in index.html comparison.csv edp.svg energy-time-hermes.svg energy-time-workpath.svg contribution-energy.svg \
         contribution-time.svg; do
  [ -s "$tmp/rep/$f" ] || fail "$f missing"
done
if command -v rsvg-convert >/dev/null; then
  [ -s "$tmp/rep/edp.png" ] || fail "rsvg-convert is installed but edp.png is missing"
  head -c 8 "$tmp/rep/edp.png" | od -c | grep -q "P   N   G" || fail "edp.png is not a PNG"
fi
html="$tmp/rep/index.html"
# Self-contained: no scripts, no stylesheets or images fetched from anywhere.
grep -Eiq '<script|<link|<img|src=|url\(|@import' "$html" && fail "the page refers to something outside itself"
grep -Eo 'href="[^"#][^"]*"' "$html" && fail "the page links to external resources"
[ "$(grep -c '<svg' "$html")" -ge 5 ] || fail "figures not inline"
grep -q "energy saving %" "$html" || fail "no table in the page"

chromium_bin=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium_bin" ]; then
  echo "SKIP: chromium not installed (scripts/setup.sh installs it)"
  exit 77
fi
render() {  # render PAGE SCREENSHOT LOG
  local profile
  profile=$(mktemp -d)
  timeout 90 "$chromium_bin" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
      --enable-logging=stderr --v=0 --hide-scrollbars --window-size=1000,2400 --screenshot="$2" "file://$1" \
      >/dev/null 2>"$3"
  local rc=$?
  rm -rf "$profile"
  return $rc
}
console_lines() { grep -E ':CONSOLE[:(]|Uncaught' "$1"; }

# Control 1: the console check sees an error when there is one.
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title></head><body><p>x</p><script>undefinedFunction();</script></body></html>\n' >"$tmp/bad.html"
render "$tmp/bad.html" "$tmp/bad.png" "$tmp/bad.log" || fail "chromium failed on the control page"
console_lines "$tmp/bad.log" >/dev/null || fail "the console check does not see a deliberate script error"
# Control 2: what a blank page's screenshot weighs.
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title></head><body></body></html>\n' >"$tmp/blank.html"
render "$tmp/blank.html" "$tmp/blank.png" "$tmp/blank.log" || fail "chromium failed on the blank page"

render "$html" "$tmp/page.png" "$tmp/page.log" || { tail -5 "$tmp/page.log"; fail "chromium failed on the report"; }
[ -s "$tmp/page.png" ] || fail "no screenshot"
if console_lines "$tmp/page.log"; then fail "console messages while rendering the report"; fi
page=$(stat -c %s "$tmp/page.png") blank=$(stat -c %s "$tmp/blank.png")
echo "screenshot: report $page bytes, blank page $blank bytes"
[ "$page" -gt $((blank * 5)) ] || fail "the report's screenshot looks blank ($page vs $blank bytes)"
echo "ok: report renders"
