#!/usr/bin/env bash
# The style and lint check of the files a change touches (fast: a few files,
# not the tree): clang-format (.clang-format) and clang-tidy (.clang-tidy)
# on the C/C++ files changed since BASE (default HEAD~1: on CI's clean clone,
# the commit under test) plus those changed or added in the working tree.
#   scripts/check-style.sh [BASE]        needs build/default/compile_commands.json
# The whole tree passes both (CONTRIBUTING.md says how to check it all).
set -uo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
git rev-parse -q --verify "$base" > /dev/null || base=$(git hash-object -t tree /dev/null)  # a first commit
mapfile -t files < <({ git diff --name-only --diff-filter=d "$base" -- ; git ls-files --others --exclude-standard; } |
                      grep -E '\.(c|cpp|h|hpp)$' | sort -u)
if [ ${#files[@]} -eq 0 ]; then
  echo "check-style: no C/C++ file changed since $base"
  exit 0
fi
status=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format-16 --dry-run --Werror "$f" 2> /tmp/check-style.$$; then
    head -20 /tmp/check-style.$$
    echo "check-style: $f is not formatted (clang-format-16 -i $f)"
    status=1
  fi
done
rm -f /tmp/check-style.$$
db=build/default/compile_commands.json
if [ ! -f "$db" ]; then
  echo "check-style: $db missing (cmake --preset default first); clang-tidy skipped" >&2
  exit 1
fi
tidy=()
for f in "${files[@]}"; do
  case $f in *.cpp | *.c) ;; *) continue ;; esac
  grep -q "\"file\": \".*/$f\"" "$db" && tidy+=("$f")  # else not built here (a sanitizer-only or disabled part)
done
if [ ${#tidy[@]} -gt 0 ]; then
  # One clang-tidy per file, as many at once as there are CPUs; a file's
  # findings are printed whole, and the check fails when any file has some.
  if ! printf '%s\n' "${tidy[@]}" |
       xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh -c \
         'out=$(clang-tidy-16 -p build/default --quiet "$1" 2>&1) || { printf "%s\n" "$out" | grep -E "warning:|error:" | head -20; echo "check-style: clang-tidy finds $1 wanting (.clang-tidy)"; exit 1; }' _ {}; then
    status=1
  fi
fi
[ $status = 0 ] && echo "check-style: ${#files[@]} changed files pass clang-format and clang-tidy"
exit $status
