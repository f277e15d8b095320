#!/bin/sh
# run-all.sh: run every test suite; the last line is the total "N passed, N failed".
BUILD=${BUILD:-build}
export BUILD
# the system loader's cache of compiled files goes to a directory of this run, removed at the end
XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/tinycl-test-cache.XXXXXX")
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
total_p=0; total_f=0
for suite in tests/run-unit.sh tests/run-lisp.sh tests/run-hostile.sh tests/run-repl.sh tests/run-mcp.sh tests/run-sandbox.sh tests/run-property.sh tests/run-boot.sh tests/run-docs.sh; do
    [ -x "$suite" ] || continue
    echo "== $suite"
    out=$("$suite" 2>&1)
    printf '%s\n' "$out"
    last=$(printf '%s\n' "$out" | tail -1)
    p=$(printf '%s' "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(printf '%s' "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then echo "$suite did not report a result"; p=0; f=1; fi
    total_p=$((total_p + p)); total_f=$((total_f + f))
done
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
